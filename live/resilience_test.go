package live

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
)

func TestRedisRestartEndsWithRightSnapshots(t *testing.T) {
	var logs syncLog
	f := newLiveFixture(t, Options{Tick: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	b := f.board("restart", "ann", 50, "bob", 40)
	page := f.dial("board=restart&period=all")
	around := f.dial("board=restart&period=all&member=bob")
	page.until("first snapshot", func(s Snapshot) bool { return order(s) == "ann:1 bob:2" })
	around.until("first snapshot", func(s Snapshot) bool { return order(s) == "ann:1 bob:2" })
	before := page.snapshots
	srv.Stop()
	eventually(t, "the hub to notice: its subscription fails", func() bool { return strings.Contains(logs.String(), "keyspace subscription lost") })
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	// The restarted Redis is empty (tests keep nothing on disk); a real one
	// would come back with its data. Put the board back as it was, changed.
	def := *b
	def.Created = time.Time{}
	if _, err := f.store.CreateBoard(context.Background(), def); err != nil {
		t.Fatal(err)
	}
	key := redisstore.ZSetKey(b.ID, board.Period{Kind: board.AllTime})
	f.rdb.ZAdd(context.Background(), key, redis.Z{Member: "bob", Score: 90}, redis.Z{Member: "ann", Score: 50}, redis.Z{Member: "cat", Score: 10})
	page.until("the state after the restart", func(s Snapshot) bool { return order(s) == "bob:1 ann:2 cat:3" })
	around.until("the state after the restart", func(s Snapshot) bool { return order(s) == "bob:1 ann:2 cat:3" })
	if page.snapshots == before {
		t.Fatal("no full snapshot after the reconnect")
	}
	// And live updates flow again through the new subscription.
	f.rdb.ZIncrBy(context.Background(), key, 100, "cat")
	page.until("an update after the restart", func(s Snapshot) bool { return order(s) == "cat:1 bob:2 ann:3" })
}

// TestPollingWhenConfigIsRefused acts like a managed Redis: CONFIG renamed
// away and notifications off. The hub says so once and polls.
func TestPollingWhenConfigIsRefused(t *testing.T) {
	managed, err := redistest.StartWith("--rename-command", "CONFIG", "", "--notify-keyspace-events", "")
	if err != nil {
		t.Fatal(err)
	}
	defer managed.Close()
	rdb := managed.Client(t)
	store := redisstore.NewStore(rdb)
	var logs syncLog
	hub := New(rdb, store, Options{Tick: 20 * time.Millisecond, PollInterval: 200 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	defer func() { cancel(); <-done }()
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hub.Serve(w, r, Spec{Board: "managed", Kind: board.AllTime, Limit: 10}, nil, r.RemoteAddr, nil)
	}))
	defer h.Close()
	b, err := store.CreateBoard(context.Background(), board.Board{ID: "managed", Title: "Managed", TieBreak: board.ByMember})
	if err != nil {
		t.Fatal(err)
	}
	f := &liveFixture{t: t, rdb: rdb, store: store, hub: hub, http: h}
	ws := f.dial("")
	ws.until("first snapshot", func(s Snapshot) bool { return s.Title == "All time" })
	rdb.ZIncrBy(context.Background(), redisstore.ZSetKey(b.ID, board.Period{Kind: board.AllTime}), 5, "ann")
	ws.until("the polled change", func(s Snapshot) bool { return order(s) == "ann:1" })
	if !hub.Polling() || !strings.Contains(logs.String(), "set notify-keyspace-events to include Kzghx") {
		t.Fatalf("polling %v; log:\n%s", hub.Polling(), logs.String())
	}
	if n := strings.Count(logs.String(), "refused CONFIG"); n != 1 {
		t.Fatalf("warned %d times", n)
	}
}

// TestFailingViewRetriesAlone: a view that cannot be read (its key holds the
// wrong type) is retried on its own with backoff; the views of other boards
// go on with diffs and get no extra snapshots, and the failing one recovers
// with a snapshot.
func TestFailingViewRetriesAlone(t *testing.T) {
	const tick = 20 * time.Millisecond
	// bad's client reads nothing while bad fails, so it answers no ping
	// meanwhile: none may end it (and its view) however long that takes.
	f := newLiveFixture(t, Options{Tick: tick, PingInterval: time.Hour})
	f.board("good", "ann", 5)
	f.board("bad", "bob", 3)
	good, bad := f.dial("board=good&period=all"), f.dial("board=bad&period=all")
	good.until("good's snapshot", func(s Snapshot) bool { return s.Total == 1 })
	bad.until("bad's snapshot", func(s Snapshot) bool { return s.Total == 1 })
	ctx := context.Background()
	key := redisstore.ZSetKey("bad", board.Period{Kind: board.AllTime})
	goodKey := redisstore.ZSetKey("good", board.Period{Kind: board.AllTime})

	// badFailures reads bad's view in the hub: its failed reads in a row. It
	// fails the test at once if the view is gone (its client dropped), or if
	// it was read without error after its key was broken.
	badFailures := func() int {
		t.Helper()
		f.hub.mu.Lock()
		var bv *view
		for _, v := range f.hub.views {
			if v.spec.Board == "bad" {
				bv = v
			}
		}
		var failures int
		var last Snapshot
		if bv != nil && bv.last != nil {
			failures, last = bv.retry.failures, *bv.last
		}
		f.hub.mu.Unlock()
		switch {
		case bv == nil:
			st := f.hub.Stats()
			t.Fatalf("bad's view is gone (its client was dropped?): %d views, %d clients, %d dropped for not reading", st.Views, st.Clients, st.SlowDisconnects)
		case failures == 0 && last.Total != 1:
			t.Fatalf("bad's view read its broken key without an error: %+v", last)
		}
		return failures
	}

	// The key becomes a string in one transaction: the DEL tells the hub
	// (which watches zset and generic events, not string ones such as SET),
	// and a read between the two commands would find the board empty,
	// succeed, and never hear of the SET.
	broken := time.Now()
	if _, err := f.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, key)
		p.Set(ctx, key, "not a zset", 0)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "bad's read to fail", func() bool { return badFailures() > 0 })

	// While bad fails, good's writes reach its client as diffs, and bad is
	// read again each time its backoff ends (the tick, doubling per failure,
	// up to maxRetry): good writes until bad has been retried five times.
	// Retries come with time, not with writes, so how many writes that takes
	// depends on the machine, not what it proves.
	const retries = 5
	first := badFailures()
	last, lastAt := first, time.Now()
	writes := 0
	for writes < retries || last < first+retries {
		if err := f.rdb.ZIncrBy(ctx, goodKey, 1, "ann").Err(); err != nil {
			t.Fatal(err)
		}
		writes++
		good.until("ann's new score", func(s Snapshot) bool { return len(s.Rows) == 1 && s.Rows[0].Value == float64(5+writes) })
		if n := badFailures(); n > last {
			last, lastAt = n, time.Now()
		} else if time.Since(lastAt) > maxRetry+patience {
			t.Fatalf("bad was not read again in %v after its failure %d (its backoff is at most %v)", time.Since(lastAt).Round(time.Millisecond), last, maxRetry)
		}
	}
	// With backoff, not every tick: no more reads than its schedule allows
	// in the time bad has been broken, and one: the tick of the first may
	// have read its clock before the key broke.
	if most := readsWithin(tick, time.Since(broken)) + 1; last > most {
		t.Errorf("bad's read failed %d times in %v; its backoff allows at most %d", last, time.Since(broken).Round(time.Millisecond), most)
	}
	// good's client has read every frame up to a diff made after bad's last
	// counted retry: a snapshot any of them caused would have come before it.
	if good.snapshots != 1 {
		t.Errorf("a failing view of another board sent %d snapshots to good's client, want only the first", good.snapshots)
	}
	t.Logf("bad failed %d times while good's client took %d diffs", last, writes)

	// Repaired in one transaction too, so bad's next retry reads the
	// repaired board, and sends it whole.
	snapshots := bad.snapshots
	if _, err := f.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, key)
		p.ZAdd(ctx, key, redis.Z{Member: "cat", Score: 9})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	bad.until("bad to recover", func(s Snapshot) bool { return order(s) == "cat:1" })
	if bad.snapshots != snapshots+1 {
		t.Errorf("bad recovered with %d snapshots, want 1", bad.snapshots-snapshots)
	}
}

// readsWithin is the most reads a failing view or feed may get in elapsed:
// the first, then one each time its backoff ends, the backoff being the tick
// doubled per failure, up to maxRetry.
func readsWithin(tick, elapsed time.Duration) int {
	n, wait, at := 1, tick, time.Duration(0)
	for {
		wait = min(2*wait, maxRetry)
		if at += wait; at > elapsed {
			return n
		}
		n++
	}
}
