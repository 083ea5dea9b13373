package live

import (
	"context"
	"fmt"
	"testing"
	"time"

	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
)

// TestClusterEveryPrimaryIsLive watches a board on each primary of a real
// three-primary Redis Cluster, then moves one board's slot to another
// primary and kills another board's primary: every write shows up, and the
// views of moved keys get a full snapshot.
func TestClusterEveryPrimaryIsLive(t *testing.T) {
	cluster, err := redistest.StartCluster(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx := context.Background()
	cc := cluster.Client(t)
	// Polling once a minute: only subscriptions can deliver in time.
	f := newLiveFixtureOn(t, cc, Options{Topology: 200 * time.Millisecond, PollInterval: time.Minute})
	primaries, err := cluster.Primaries(ctx)
	if err != nil || len(primaries) != 3 {
		t.Fatalf("primaries %v, %v", primaries, err)
	}
	// One board per primary.
	onPrimary := map[string]string{} // primary -> board
	for i := 0; len(onPrimary) < 3; i++ {
		id := fmt.Sprintf("b%d", i)
		p, err := cluster.PrimaryOf(ctx, redisstore.ZSetKey(id, board.Period{Kind: board.AllTime}))
		if err != nil {
			t.Fatal(err)
		}
		if onPrimary[p] == "" {
			onPrimary[p] = id
		}
	}
	all := board.Period{Kind: board.AllTime}
	ids := make([]string, 3)
	watchers := make([]*wsClient, 3)
	for i, p := range primaries {
		ids[i] = onPrimary[p]
		f.board(ids[i], "ann", 50, "bob", 40, "cat", 30)
		watchers[i] = f.dial("board=" + ids[i] + "&period=all")
		watchers[i].until("first snapshot of "+ids[i], func(s Snapshot) bool { return order(s) == "ann:1 bob:2 cat:3" })
	}
	for i, id := range ids {
		if err := cc.ZIncrBy(ctx, redisstore.ZSetKey(id, all), 25, "cat").Err(); err != nil {
			t.Fatal(err)
		}
		watchers[i].until("cat to move up on "+primaries[i], func(s Snapshot) bool { return order(s) == "cat:1 ann:2 bob:3" })
	}

	// Resharding: board 0's slot moves to the next primary while watched.
	key0 := redisstore.ZSetKey(ids[0], all)
	before := watchers[0].snapshots
	if err := cluster.MoveSlot(ctx, int(redistest.Slot(key0)), primaries[1]); err != nil {
		t.Fatal(err)
	}
	if now, _ := cluster.PrimaryOf(ctx, key0); now != primaries[1] {
		t.Fatalf("slot of %s on %s after the move, want %s", key0, now, primaries[1])
	}
	watchers[0].until("a snapshot after the slot moved", func(Snapshot) bool { return watchers[0].snapshots > before })
	if err := cc.ZIncrBy(ctx, key0, 100, "bob").Err(); err != nil {
		t.Fatal(err)
	}
	watchers[0].until("bob to lead after the move", func(s Snapshot) bool { return order(s) == "bob:1 cat:2 ann:3" })

	// Failover: board 2's primary dies; its replica takes over.
	key2 := redisstore.ZSetKey(ids[2], all)
	before = watchers[2].snapshots
	cluster.Node(primaries[2]).Stop()
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := cluster.WaitStable(wctx); err != nil {
		t.Fatal(err)
	}
	now, _ := cluster.PrimaryOf(ctx, key2)
	t.Logf("%s failed over to %s in %v", primaries[2], now, time.Since(start).Round(time.Millisecond))
	// The hub notices the new primary and sends a snapshot; after that, a
	// write must arrive through the new primary's subscription.
	// On a loaded machine the cluster client may take seconds more to find
	// the new primary for the hub's reads (which back off meanwhile): the
	// test is that the change arrives, not how soon.
	const converge = 20 * time.Second
	watchers[2].within(converge, "a snapshot after the failover", func(Snapshot) bool { return watchers[2].snapshots > before })
	for {
		err := cc.ZIncrBy(ctx, key2, 100, "bob").Err()
		if err == nil {
			break
		}
		if wctx.Err() != nil {
			t.Fatalf("write after the failover: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	watchers[2].within(converge, "bob to lead after the failover", func(s Snapshot) bool { return order(s) == "bob:1 cat:2 ann:3" })
	t.Logf("the client converged %v after the kill", time.Since(start).Round(time.Millisecond))
	if f.hub.Polling() {
		t.Error("the hub fell back to polling after a failover: an unreachable node is not one that refuses CONFIG")
	}
}
