package main

import (
	"context"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/app"
	"podium/audit"
	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
)

// startRun runs the binary's run in the background, serving on a free
// address, until the test stops it; stop cancels it as SIGTERM would and
// returns run's error. It returns once the server answers.
func startRun(t *testing.T, args []string, vars map[string]string) (stop func() error) {
	t.Helper()
	return serve(t, args, vars).stop
}

// eventually polls cond until it holds, failing the test at the deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventuallyWithin(t, what, 20*time.Second, cond)
}

// eventuallyWithin is eventually with a bound of its own, for a wait that
// includes something slow on a loaded machine (a Sentinel failover).
func eventuallyWithin(t *testing.T, what string, bound time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dumpKeys is every key matching pattern with its serialized value.
func dumpKeys(t *testing.T, rdb *redis.Client, pattern string) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, pattern).Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		out[k] = rdb.Dump(ctx, k).Val()
	}
	return out
}

// TestDemoRefusesBoardsItDidNotMake: a store that holds a real board named
// like a demo board is refused, with a clear error, and nothing is written.
func TestDemoRefusesBoardsItDidNotMake(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rdb := srv.Client(t)
	ctx := context.Background()
	store := redisstore.NewStore(rdb)
	if _, err := store.CreateBoard(ctx, board.Board{ID: "arcade", Title: "Our real arcade", Periods: []board.Kind{board.AllTime}}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Submit(ctx, "arcade", board.Submission{Member: "real-player", Score: 4200}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	before := dumpKeys(t, rdb, "lb:*")
	// run must refuse at start; should it serve instead, it is stopped after a while.
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err = run(rctx, []string{"--addr", "127.0.0.1:0", "--demo"}, env(t, map[string]string{"REDIS_URL": "redis://" + srv.Addr}), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "arcade") || !strings.Contains(err.Error(), "did not make") {
		t.Fatalf("demo over a real arcade board: %v", err)
	}
	time.Sleep(500 * time.Millisecond) // more than a demo tick: nothing may be writing in the background
	if after := dumpKeys(t, rdb, "lb:*"); !maps.Equal(before, after) {
		t.Fatalf("the demo wrote to a store it refused: keys before %v, after %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
	if n := rdb.Exists(ctx, app.DemoBoardsKey, "podium:audit").Val(); n != 0 {
		t.Fatalf("the refused demo left marks or audit entries (%d keys)", n)
	}
}

// TestDemoOwnBoardsAcrossRestarts: the demo makes and marks its boards on a
// real Redis, every demo score is in the audit log as actor "demo", and a
// second start carries on over the same boards.
func TestDemoOwnBoardsAcrossRestarts(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rdb := srv.Client(t)
	ctx := context.Background()
	vars := map[string]string{"REDIS_URL": "redis://" + srv.Addr}
	ids := []string{"arcade", "arena", "sales", "sprint-100m"}
	demoEntries := func() (n int64) {
		for _, id := range ids {
			n += rdb.XLen(ctx, redisstore.AuditActorStream(id, app.DemoActor)).Val()
		}
		return n
	}
	// Made and marked, and each one seeded: a run stopped while the last
	// board is seeded leaves it without scores (a second run does not seed
	// a board it finds made).
	seeded := func() bool {
		for _, id := range ids {
			if rdb.XLen(ctx, redisstore.AuditActorStream(id, app.DemoActor)).Val() == 0 {
				return false
			}
		}
		return rdb.HLen(ctx, app.DemoBoardsKey).Val() == int64(len(ids))
	}

	stop := startRun(t, []string{"--demo"}, vars)
	eventually(t, "the demo boards", seeded)
	first := demoEntries()
	eventually(t, "live demo scores", func() bool { return demoEntries() > first })
	if err := stop(); err != nil {
		t.Fatalf("first run: %v", err)
	}
	marks := rdb.HGetAll(ctx, app.DemoBoardsKey).Val()
	if got := slices.Sorted(maps.Keys(marks)); !slices.Equal(got, ids) {
		t.Fatalf("marked boards %v, want %v", got, ids)
	}
	before := demoEntries()

	stop = startRun(t, []string{"--demo"}, vars)
	eventually(t, "demo scores after a restart", func() bool { return demoEntries() > before+2 })
	if err := stop(); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if again := rdb.HGetAll(ctx, app.DemoBoardsKey).Val(); !maps.Equal(marks, again) {
		t.Fatalf("the boards were made again: %v, then %v", marks, again)
	}

	// Every demo score has its entry; nobody else's name is on them.
	entries, _, err := audit.New(rdb).List(ctx, audit.Filter{Actor: app.DemoActor}, "", 5000)
	if err != nil {
		t.Fatal(err)
	}
	perBoard := map[string]int{}
	for _, e := range entries {
		if e.Action == "member.team" && e.Board == "sales" && e.Member != "" && e.After != "" {
			continue // the sales demo puts each member in a region with their first score
		}
		if e.Action == "member.segment" && e.Board == "arena" && e.Member != "" && e.After != "" {
			continue // the arena demo gives each member a country with their first score
		}
		if e.Actor != app.DemoActor || !slices.Contains(ids, e.Board) || !strings.HasPrefix(e.Action, "score.") || e.Member == "" || e.Period == "" || e.After == "" {
			t.Fatalf("demo audit entry %+v", e)
		}
		perBoard[e.Board]++
	}
	for _, id := range ids {
		if perBoard[id] == 0 {
			t.Fatalf("no demo audit entries for %s: %v", id, perBoard)
		}
	}
	if actors, _ := audit.New(rdb).Actors(ctx); !slices.Equal(actors, []string{app.DemoActor}) {
		t.Fatalf("actors %v, want only %q", actors, app.DemoActor)
	}
	// The board's own recent-changes list and the audit log agree on the
	// newest demo score.
	store := redisstore.NewStore(rdb)
	b, err := store.Board(ctx, entries[0].Board)
	if err != nil {
		t.Fatal(err)
	}
	recent, err := store.Recent(ctx, &b, 1)
	if err != nil || len(recent) == 0 {
		t.Fatalf("recent changes of %s: %v %v", b.ID, recent, err)
	}
	if recent[0].Member != entries[0].Member {
		t.Fatalf("newest change on %s is %q, newest audit entry %q", b.ID, recent[0].Member, entries[0].Member)
	}
}
