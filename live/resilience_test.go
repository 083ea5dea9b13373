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
		hub.Serve(w, r, Spec{Board: "managed", Kind: board.AllTime, Limit: 10}, nil, r.RemoteAddr)
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
// get no extra snapshots, and the failing one recovers with a snapshot.
func TestFailingViewRetriesAlone(t *testing.T) {
	f := newLiveFixture(t, Options{Tick: 20 * time.Millisecond})
	f.board("good", "ann", 5)
	f.board("bad", "bob", 3)
	good, bad := f.dial("board=good&period=all"), f.dial("board=bad&period=all")
	good.until("good's snapshot", func(s Snapshot) bool { return s.Total == 1 })
	bad.until("bad's snapshot", func(s Snapshot) bool { return s.Total == 1 })
	ctx := context.Background()
	key := redisstore.ZSetKey("bad", board.Period{Kind: board.AllTime})
	if err := f.rdb.Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	if err := f.rdb.Set(ctx, key, "not a zset", 0).Err(); err != nil {
		t.Fatal(err)
	}
	// While bad fails, good keeps its one snapshot and gets its writes as
	// diffs, each write followed by one more failed read of bad.
	failures := func() int {
		f.hub.mu.Lock()
		defer f.hub.mu.Unlock()
		for _, v := range f.hub.views {
			if v.spec.Board == "bad" {
				return v.retry.failures
			}
		}
		return 0
	}
	for i := range 5 {
		f.rdb.ZIncrBy(ctx, redisstore.ZSetKey("good", board.Period{Kind: board.AllTime}), 1, "ann")
		good.until("ann's new score", func(s Snapshot) bool { return len(s.Rows) == 1 && s.Rows[0].Value == float64(6+i) })
		n := failures()
		eventually(t, "bad's read to fail again", func() bool { return failures() > n })
	}
	if good.snapshots != 1 {
		t.Errorf("a failing view of another board sent %d snapshots to good's client, want only the first", good.snapshots)
	}
	if err := f.rdb.Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	f.rdb.ZAdd(ctx, key, redis.Z{Member: "cat", Score: 9})
	bad.until("bad to recover", func(s Snapshot) bool { return order(s) == "cat:1" })
}
