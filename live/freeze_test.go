package live

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
	"podium/rows"
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
	all := redisstore.ZSetKey(b.ID, board.Period{Kind: board.AllTime})
	for _, w := range []redis.Z{{Member: "cat", Score: 100}, {Member: "dan", Score: 45}} {
		if err := f.rdb.ZIncrBy(ctx, all, w.Score, w.Member.(string)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	admin.until("the admin to see the writes", func(s Snapshot) bool { return order(s) == "cat:1 ann:2 dan:3 bob:4" })
	// The tick that read the admin's view after the writes read the public
	// one too (same key, one pipeline), unless it held it for its client,
	// still busy with the last frame; a held view stays held until a later
	// tick reads it. Once the public view is not held, whatever frame it
	// made of the writes is queued, and read below before the reveal.
	eventually(t, "the hub to read the public view after the writes", func() bool {
		f.hub.mu.Lock()
		defer f.hub.mu.Unlock()
		for _, v := range f.hub.views {
			if v.spec.Board == b.ID && !v.spec.Live {
				return !v.held
			}
		}
		t.Fatal("the public view is gone")
		return false
	})

	if _, err := f.store.Unfreeze(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	// Every public frame until the reveal shows the standings of the
	// freeze; the reveal is one frame, rows and notice together.
	for order(public.state) != "cat:1 ann:2 dan:3 bob:4" {
		if order(public.state) != "ann:1 bob:2 cat:3" || public.state.Total != 3 || public.state.Frozen == "" {
			t.Fatalf("the public saw writes made after the freeze: %s (total %d, notice %q)", order(public.state), public.state.Total, public.state.Frozen)
		}
		if _, err := public.next(patience); err != nil {
			t.Fatalf("waiting for the reveal: %v", err)
		}
	}
	if public.state.Frozen != "" || public.state.Total != 4 {
		t.Fatalf("the reveal kept the notice %q (total %d)", public.state.Frozen, public.state.Total)
	}
	admin.until("the note to go", func(s Snapshot) bool { return s.Frozen == "" })
}

// TestFrozenBoardSendsNothingOfLaterChanges (issue 24): after the freeze, a
// write (a member first seen, with a name), a rename and a removal send the
// public no frame: not a name turned back into an id, not a recent-changes
// list a line shorter. The admin's view follows them; the reveal pushes
// the live names and recent changes to the public.
func TestFrozenBoardSendsNothingOfLaterChanges(t *testing.T) {
	f := newLiveFixture(t, Options{})
	ctx := context.Background()
	b := f.board("hush")
	submit := func(member, name string, score float64) {
		t.Helper()
		if _, err := f.store.Submit(ctx, b.ID, board.Submission{Member: member, Name: name, Score: score, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range []string{"m1", "m2", "m3", "m4", "m5", "m6"} {
		submit(m, "", float64(i+1))
	}
	submit("dave", "Dave", 30)
	submit("bob", "Bob", 40)
	submit("ann", "Ann", 50)
	public := f.dial("board=hush&period=all&recent=1")
	admin := f.dial("board=hush&period=all&live=1")
	public.until("first snapshot", func(s Snapshot) bool { return len(s.Rows) == 9 })
	public.untilRecent("the recent changes", func(items []rows.Activity) bool { return len(items) == RecentSize })

	if _, err := f.store.Freeze(ctx, b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	public.until("the frozen notice", func(s Snapshot) bool { return strings.HasPrefix(s.Frozen, "Frozen since ") })
	admin.until("the admin's note", func(s Snapshot) bool { return strings.HasPrefix(s.Frozen, "You see the live standings") })
	frozenRows, frozenRecent := named(public.state), recentNames(public.recent)
	if !strings.HasPrefix(frozenRows, "ann:Ann bob:Bob dave:Dave ") || !strings.HasPrefix(frozenRecent, "ann:Ann bob:Bob dave:Dave ") {
		t.Fatalf("at the freeze: rows %s, recent %s", frozenRows, frozenRecent)
	}

	submit("zed", "Zed", 100)
	if _, err := f.store.SetName(ctx, b.ID, "bob", "Robert", board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.RemoveMember(ctx, b.ID, "dave", nil, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	// Once the admin's view shows all three, the hub has read the public
	// view and the recent changes after them: any frame they made is on
	// its way to the public before the reveal's.
	admin.until("the admin to see the changes", func(s Snapshot) bool {
		return strings.HasPrefix(named(s), "zed:Zed ann:Ann bob:Robert m6:m6")
	})
	if _, err := f.store.Unfreeze(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	revealed := func() bool {
		return public.state.Frozen == "" && strings.HasPrefix(named(public.state), "zed:Zed ann:Ann bob:Robert m6:m6") &&
			strings.HasPrefix(recentNames(public.recent), "zed:Zed ann:Ann bob:Robert ")
	}
	deadline := time.Now().Add(patience)
	for !revealed() {
		if public.state.Frozen != "" {
			if got := named(public.state); got != frozenRows {
				t.Fatalf("the public view showed a change made after the freeze: %s, want %s", got, frozenRows)
			}
			if got := recentNames(public.recent); got != frozenRecent {
				t.Fatalf("the public recent changes showed a change made after the freeze: %s, want %s", got, frozenRecent)
			}
		}
		if _, err := public.next(time.Until(deadline)); err != nil {
			t.Fatalf("waiting for the reveal: %v; rows %s, recent %s", err, named(public.state), recentNames(public.recent))
		}
	}
}

// named renders a snapshot's rows as "member:name" in order.
func named(s Snapshot) string {
	var out []string
	for _, r := range s.Rows {
		out = append(out, r.Member+":"+r.Name)
	}
	return strings.Join(out, " ")
}

// recentNames renders recent changes as "member:name", newest first.
func recentNames(items []rows.Activity) string {
	var out []string
	for _, a := range items {
		out = append(out, a.Member+":"+a.Name)
	}
	return strings.Join(out, " ")
}
