package hooks

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
)

// TestOnTheEmbeddedStore: `make run` keeps its data in miniredis, whose
// Lua and streams are its own implementation: events are found, queued and
// delivered there too.
func TestOnTheEmbeddedStore(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	store := redisstore.NewStore(rdb)
	b, err := store.CreateBoard(ctx, board.Board{ID: "mini", Title: "Mini", Periods: []board.Kind{board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly})
	if err != nil {
		t.Fatal(err)
	}
	recv := newReceiver(t, nil)
	reg := NewRegistry(rdb, nil, AllowPrivate(true)) // the receiver is on loopback
	h, err := reg.Create(ctx, &b, Input{URL: recv.srv.URL, Events: []Event{NewLeader, TopEntered}, AllPeriods: true, Top: 3}, "test")
	if err != nil {
		t.Fatal(err)
	}
	recv.secret.Store(h.Secret)
	r := NewRunner(rdb, store, reg, Options{Client: recv.client(time.Second), Timeout: time.Second, RetryFirst: 2 * time.Second})
	if err := r.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"ann", "bob"} {
		if _, err := store.Submit(ctx, "mini", board.Submission{Member: m, Score: 5}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	counts := map[Event]int{}
	for _, d := range recv.deliveries() {
		if !d.Verified {
			t.Fatalf("%s does not verify", d.Body)
		}
		counts[d.Payload.Type]++
	}
	// In the week and all time: ann leads, and ann and bob enter the top 3.
	if counts[NewLeader] != 2 || counts[TopEntered] != 2 || len(recv.deliveries()) != 4 {
		t.Fatalf("deliveries: %v", counts)
	}
}

// TestLeagueClosedOnTheEmbeddedStore: a league close is announced on
// miniredis too, as `make run`'s archiver applies it.
func TestLeagueClosedOnTheEmbeddedStore(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	c := newClock(wednesday)
	store := redisstore.NewStore(rdb, redisstore.WithClock(c.Now))
	b, err := store.CreateBoard(ctx, board.Board{ID: "mini", Title: "Mini", Periods: []board.Kind{board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly,
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver"}, Promote: 1, Relegate: 1}})
	if err != nil {
		t.Fatal(err)
	}
	recv := newReceiver(t, nil)
	recv.now.Store(c.Now)
	reg := NewRegistry(rdb, c.Now, AllowPrivate(true))
	h, err := reg.Create(ctx, &b, Input{URL: recv.srv.URL, Events: []Event{LeagueClosed}, AllPeriods: true, Top: 3}, "test")
	if err != nil {
		t.Fatal(err)
	}
	recv.secret.Store(h.Secret)
	for m, v := range map[string]float64{"ann": 5, "bob": 3} {
		if _, err := store.Submit(ctx, "mini", board.Submission{Member: m, Score: v, Name: "N " + m}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	w := b.Current(board.Weekly, c.Now())
	c.Set(w.End.Add(time.Minute))
	if ok, err := store.CloseLeague(ctx, &b, w); err != nil || !ok {
		t.Fatalf("close: %v %v", ok, err)
	}
	r := NewRunner(rdb, store, reg, Options{Now: c.Now, Client: recv.client(time.Second), Timeout: time.Second, RetryFirst: 2 * time.Second})
	for range 2 {
		if err := r.Pass(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := recv.deliveries()
	if len(got) != 1 || !got[0].Verified || got[0].Payload.League == nil || got[0].Payload.League.Moves != (MoveCounts{Up: 1, Stay: 1}) ||
		got[0].Payload.League.Promoted[0].Name != "N ann" {
		for _, d := range got {
			t.Errorf("delivered %s", d.Body)
		}
		t.Fatalf("%d deliveries", len(got))
	}
}
