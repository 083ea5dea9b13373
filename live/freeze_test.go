package live

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// TestFreezeAndReveal: a frozen board's public view keeps the standings of
// the freeze and says so, while an admin's (live) view of the same board
// follows every write; the unfreeze moves the public view to the live
// standings in one frame and lifts the notice. Writes come from outside
// (ZINCRBY on a member tie-break board), after the freeze has been taken.
func TestFreezeAndReveal(t *testing.T) {
	f := newLiveFixture(t, Options{})
	ctx := context.Background()
	b := f.board("contest", "ann", 50, "bob", 40, "cat", 30)
	public := f.dial("board=contest&period=all")
	admin := f.dial("board=contest&period=all&live=1")
	public.until("first snapshot", func(s Snapshot) bool { return order(s) == "ann:1 bob:2 cat:3" && s.Frozen == "" })
	admin.until("first snapshot", func(s Snapshot) bool { return order(s) == "ann:1 bob:2 cat:3" })

	if _, err := f.store.Freeze(ctx, b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	public.until("the frozen notice", func(s Snapshot) bool { return strings.HasPrefix(s.Frozen, "Frozen since ") })
	admin.until("the admin's note", func(s Snapshot) bool { return strings.HasPrefix(s.Frozen, "You see the live standings") })
	all := board.ZSetKey(b.ID, board.Period{Kind: board.AllTime})
	for _, w := range []redis.Z{{Member: "cat", Score: 100}, {Member: "dan", Score: 45}} {
		if err := f.rdb.ZIncrBy(ctx, all, w.Score, w.Member.(string)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	admin.until("the admin to see the writes", func(s Snapshot) bool { return order(s) == "cat:1 ann:2 dan:3 bob:4" })
	time.Sleep(200 * time.Millisecond) // ten ticks for the public view to go wrong

	if _, err := f.store.Unfreeze(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	// Every public frame until the reveal shows the standings of the
	// freeze; the reveal is one frame, rows and notice together.
	for order(public.state) != "cat:1 ann:2 dan:3 bob:4" {
		if order(public.state) != "ann:1 bob:2 cat:3" || public.state.Total != 3 || public.state.Frozen == "" {
			t.Fatalf("the public saw writes made after the freeze: %s (total %d, notice %q)", order(public.state), public.state.Total, public.state.Frozen)
		}
		if _, err := public.next(5 * time.Second); err != nil {
			t.Fatalf("waiting for the reveal: %v", err)
		}
	}
	if public.state.Frozen != "" || public.state.Total != 4 {
		t.Fatalf("the reveal kept the notice %q (total %d)", public.state.Frozen, public.state.Total)
	}
	admin.until("the note to go", func(s Snapshot) bool { return s.Frozen == "" })
}
