package live

import (
	"context"
	"podium/board"
	"podium/redisstore"
	"testing"
	"time"
)

// A change to a quiet board is read at the next request, not a tick later.

// TestQuietBoardShowsAnOutsideWriteAtOnce: on a board not written for a
// tick, a write from outside (ZINCRBY) is read again as soon as its
// notification arrives, not a tick later.
func TestQuietBoardShowsAnOutsideWriteAtOnce(t *testing.T) {
	f := newLiveFixture(t, Options{PollInterval: time.Minute, Tick: time.Hour})
	c := f.hub.NewCache(f.store)
	b := f.board("quiet", "ann", 5, "bob", 3)
	ctx := context.Background()
	p := b.Current(board.AllTime, f.store.Now())
	gen := func(id string) uint64 { c.mu.Lock(); defer c.mu.Unlock(); return c.board(id, time.Now()).gen }
	// Notifications come in order: once a later write's has arrived, the
	// set-up's have.
	if err := f.rdb.ZIncrBy(ctx, "lb:{quiet-barrier}:all", 1, "x").Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the set-up's notifications", func() bool { return gen("quiet-barrier") > 0 })
	eventually(t, "the hub vouches for its notifications", f.hub.Fresh)
	c.mu.Lock()
	c.board(b.ID, time.Now()).changed = time.Time{} // the set-up was long ago: a quiet board
	c.mu.Unlock()
	if pg, err := c.Page(ctx, b, p, 0, 10); err != nil || pg.Entries[0].Member != "ann" {
		t.Fatalf("first read: %+v, %v", pg, err)
	}
	before := gen(b.ID)
	if err := f.rdb.ZIncrBy(ctx, redisstore.ZSetKey(b.ID, p), 10, "bob").Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the write's notification", func() bool { return gen(b.ID) > before })
	if pg, err := c.Page(ctx, b, p, 0, 10); err != nil || pg.Entries[0].Member != "bob" {
		t.Fatalf("read after the notification (the tick is an hour): %+v, %v", pg.Entries, err)
	}
}

// TestQuietBoardShowsAnotherReplicasWriteAtOnce: one write through another
// replica notifies of several keys (each period, the entries, the names);
// on a quiet board it is still read at the next request, not a tick later:
// a write's own notifications do not make its board busy.
func TestQuietBoardShowsAnotherReplicasWriteAtOnce(t *testing.T) {
	f := newLiveFixture(t, Options{PollInterval: time.Minute, Tick: time.Hour})
	c := f.hub.NewCache(f.store)
	ctx := context.Background()
	other := redisstore.NewStore(f.rdb) // another replica: no hook into this cache
	b, err := other.CreateBoard(ctx, board.Board{ID: "quiet-write", Title: "Quiet", Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"ann", "bob"} {
		if _, err := other.Submit(ctx, b.ID, board.Submission{Member: m, Score: 5, Name: "Name of " + m}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	gen := func(id string) uint64 { c.mu.Lock(); defer c.mu.Unlock(); return c.board(id, time.Now()).gen }
	// Notifications come in order: once a later write's has arrived, the
	// earlier ones' have.
	barrier := func(n float64) {
		t.Helper()
		before := gen("quiet-barrier")
		if err := f.rdb.ZIncrBy(ctx, "lb:{quiet-barrier}:all", n, "x").Err(); err != nil {
			t.Fatal(err)
		}
		eventually(t, "a later write's notification", func() bool { return gen("quiet-barrier") > before })
	}
	barrier(1)
	eventually(t, "the hub vouches for its notifications", f.hub.Fresh)
	c.mu.Lock()
	c.board(b.ID, time.Now()).changed = time.Time{} // the set-up was long ago (the tick is an hour): a quiet board
	c.mu.Unlock()
	p := b.Current(board.AllTime, f.store.Now())
	if pg, err := c.Page(ctx, &b, p, 0, 10); err != nil || pg.Entries[0].Score != 5 {
		t.Fatalf("first read: %+v, %v", pg, err)
	}
	if _, err := other.Submit(ctx, b.ID, board.Submission{Member: "bob", Score: 10, Name: "Bob"}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	barrier(1)
	if pg, err := c.Page(ctx, &b, p, 0, 10); err != nil || pg.Entries[0].Member != "bob" || pg.Entries[0].Score != 15 {
		t.Fatalf("read after the write's notifications (the tick is an hour): %+v, %v", pg.Entries, err)
	}
}
