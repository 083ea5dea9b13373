package live

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
)

// TestNotificationsReturnAfterRestart: a Redis whose own configuration has
// no notify-keyspace-events, so the hub turned them on itself, is killed
// and started again on the same port, still without them. Once the hub has
// resubscribed, an outside ZINCRBY must reach the viewer through a
// notification: polling is an hour away.
func TestNotificationsReturnAfterRestart(t *testing.T) {
	t.Parallel()
	bare, err := redistest.StartWith("--notify-keyspace-events", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bare.Close)
	ctx := context.Background()
	if flags, err := bare.Client(t).ConfigGet(ctx, "notify-keyspace-events").Result(); err != nil || flags["notify-keyspace-events"] != "" {
		t.Fatalf("Redis's own notify-keyspace-events: %v, %v; want none", flags, err)
	}
	// The app's client, with a pool of one whose failed dial counts at once:
	// the outage soon leaves it failing fast with its last dial error, as a
	// busy app's pool (ten connections a core) does, for up to a second after
	// Redis is back, while the subscription, a pool of its own, already
	// reconnects.
	rdb := redis.NewClient(&redis.Options{Addr: bare.Addr, PoolSize: 1, DialerRetries: 1})
	t.Cleanup(func() { rdb.Close() })
	var logs syncLog
	f := newLiveFixtureOn(t, rdb, Options{PollInterval: time.Hour, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	b := f.board("restarted", "ann", 50, "bob", 40)
	ws := f.dial("board=restarted&period=all")
	ws.until("the first snapshot", func(s Snapshot) bool { return order(s) == "ann:1 bob:2" })

	bare.Stop() // kill -9
	eventually(t, "the hub to lose its subscription", func() bool { return strings.Contains(logs.String(), "keyspace subscription lost") })
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatal("Redis answers after the kill")
	}
	subscribed := strings.Count(logs.String(), "live: subscribed")
	if err := bare.Restart(); err != nil {
		t.Fatal(err)
	}
	outside := bare.Client(t)
	// The restarted Redis is empty (tests keep nothing on disk); a real one
	// would come back with its data. Put the board back, changed.
	def := *b
	def.Created = time.Time{}
	if _, err := redisstore.NewStore(outside).CreateBoard(ctx, def); err != nil {
		t.Fatal(err)
	}
	key := redisstore.ZSetKey(b.ID, board.Period{Kind: board.AllTime})
	if err := outside.ZAdd(ctx, key, redis.Z{Member: "bob", Score: 90}, redis.Z{Member: "ann", Score: 50}).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the hub to resubscribe", func() bool { return strings.Count(logs.String(), "live: subscribed") > subscribed })
	ws.within(20*time.Second, "the board after the restart", func(s Snapshot) bool { return order(s) == "bob:1 ann:2" })

	// Writes from outside until one has arrived by a notification: each
	// must reach the viewer, the first maybe by a re-read of every view.
	events := f.hub.Stats().Events
	for cat := 1.0; ; cat++ {
		if cat > 20 {
			t.Fatalf("no keyspace notification after the restart, %d writes later; log:\n%s", int(cat-1), logs.String())
		}
		if err := outside.ZIncrBy(ctx, key, 1, "cat").Err(); err != nil {
			t.Fatal(err)
		}
		ws.within(20*time.Second, "the outside ZINCRBY", func(s Snapshot) bool {
			return len(s.Rows) == 3 && s.Rows[2].Member == "cat" && s.Rows[2].Value == cat
		})
		if f.hub.Stats().Events > events {
			break
		}
	}
	flags, err := outside.ConfigGet(ctx, "notify-keyspace-events").Result()
	if on := flags["notify-keyspace-events"]; err != nil || !strings.Contains(on, "K") || !strings.Contains(on, "z") {
		t.Fatalf("notify-keyspace-events after the restart: %v, %v", flags, err)
	}
	if f.hub.Polling() {
		t.Fatalf("the hub polls after the restart; log:\n%s", logs.String())
	}
}

// eventually polls cond until it holds, or fails the test at a deadline
// long enough for Redis to restart on a loaded machine.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(patience); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHubWatchesItsOwnDatabase: a hub on database 3 takes the keyspace
// notifications of database 3 only (__keyspace@3__:...): a write to the same
// key in database 4 neither reaches its clients nor counts as an event, so
// apps (and tests) on other databases of one server keep apart.
func TestHubWatchesItsOwnDatabase(t *testing.T) {
	ctx := context.Background()
	mine, other := srv.ClientDB(t, 3), srv.ClientDB(t, 4)
	for _, c := range []*redis.Client{mine, other} {
		if err := c.FlushDB(ctx).Err(); err != nil { // our private server's
			t.Fatal(err)
		}
	}
	f := newLiveFixtureOn(t, mine, Options{DB: 3})
	b := f.board("shared", "ann", 50, "bob", 40)
	ws := f.dial("board=shared&period=all")
	ws.until("the first snapshot", func(s Snapshot) bool { return order(s) == "ann:1 bob:2" })
	key := redisstore.ZSetKey(b.ID, board.Period{Kind: board.AllTime})
	// A subscriber gets notifications in the order Redis publishes them:
	// once the client shows a write, the hub has had every one before it.
	if err := mine.ZIncrBy(ctx, key, 1, "ann").Err(); err != nil {
		t.Fatal(err)
	}
	ws.until("ann's write", func(s Snapshot) bool { return len(s.Rows) == 2 && s.Rows[0].Value == 51 })
	events := f.hub.Stats().Events
	if err := other.ZIncrBy(ctx, key, 100, "bob").Err(); err != nil { // bob 140 there
		t.Fatal(err)
	}
	if err := mine.ZIncrBy(ctx, key, 20, "bob").Err(); err != nil { // bob 60 here
		t.Fatal(err)
	}
	ws.until("bob's write in database 3", func(s Snapshot) bool { return order(s) == "bob:1 ann:2" })
	if got := ws.state.Rows[0].Value; got != 60 {
		t.Fatalf("bob shows %v, want 60: the hub read another database", got)
	}
	if n := f.hub.Stats().Events - events; n != 1 {
		t.Fatalf("the hub took %d keyspace events for a write in its database and one in database 4; want 1", n)
	}
}
