package live

import (
	"context"
	"errors"
	"testing"
	"time"

	"podium/board"
	"podium/rows"
)

// TestRecentChangesFollowTheBoard: a board page (recent=1) gets the board's
// recent changes when they change, each with what it did in every period it
// touched; a widget of the same view shares the view and gets none.
func TestRecentChangesFollowTheBoard(t *testing.T) {
	f := newLiveFixture(t, Options{})
	f.board("rec")
	page := f.dial("board=rec&period=all&recent=1")
	widget := f.dial("board=rec&period=all")
	page.untilRecent("an empty list", func(items []rows.Activity) bool { return page.recents > 0 && len(items) == 0 })
	ctx := context.Background()
	for _, s := range []board.Submission{{Member: "ann", Name: "Ann", Score: 5}, {Member: "bob", Name: "Bob", Score: 9}} {
		if _, err := f.store.Submit(ctx, "rec", s, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	page.untilRecent("both changes", func(items []rows.Activity) bool { return len(items) == 2 })
	bob := page.recent[0]
	if all := bob.Periods["all"]; bob.Name != "Bob" || all.Delta != "+9" || all.Rank != "1st" || all.After != "9" {
		t.Fatalf("newest change %+v", bob)
	}
	if ann := page.recent[1].Periods["all"]; ann.Rank != "1st" {
		t.Fatalf("Ann's change shows rank %q: a change shows the rank it gave, not today's", ann.Rank)
	}
	widget.until("both scores", func(s Snapshot) bool { return s.Total == 2 })
	if widget.recents != 0 {
		t.Fatalf("the widget got %d recent-changes frames; it did not ask", widget.recents)
	}
	f.hub.mu.Lock()
	following := len(f.hub.feeds[feedKey{board: "rec"}].clients)
	f.hub.mu.Unlock()
	if st := f.hub.Stats(); st.Views != 1 || st.Clients != 2 || following != 1 {
		t.Fatalf("%d views for %d clients, %d following recent changes: want the page and the widget sharing one view, the page alone following", st.Views, st.Clients, following)
	}
}

// TestFailingRecentReadBacksOff: a board whose recent changes cannot be read
// is not read again every tick (a shard that does not answer would hold
// every tick for its timeout), and its view goes on.
func TestFailingRecentReadBacksOff(t *testing.T) {
	h, r := newTestHub(Options{})
	r.recentErr = errors.New("WRONGTYPE")
	fc := &fakeConn{}
	cl := newClient(fc)
	if err := h.attach(context.Background(), cl, Spec{Board: "b", Kind: board.AllTime, Limit: 10, Recent: true}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range 30 {
		h.markDirty("lb:{b}:all")
		h.markDirty("lb:{b}:recent")
		h.tick(context.Background())
		waitFor(t, "the client to take its frame", func() bool { return !cl.busy.Load() })
	}
	// However long the 30 ticks took (3 reads if under 1.4 s), no more
	// reads than the backoff's schedule allows in that time.
	elapsed := time.Since(start)
	if most := readsWithin(h.opts.Tick, elapsed); r.recentCalls > most || r.reads != 30 {
		t.Fatalf("30 ticks in %v read the failing recent changes %d times and the view %d times; want a backoff (at most %d), and 30",
			elapsed.Round(time.Millisecond), r.recentCalls, r.reads, most)
	}
}

// untilRecent reads frames until the recent changes satisfy ok.
func (w *wsClient) untilRecent(what string, ok func([]rows.Activity) bool) {
	w.t.Helper()
	deadline := time.Now().Add(patience)
	for !ok(w.recent) {
		left := time.Until(deadline)
		if left <= 0 {
			w.t.Fatalf("timed out waiting for %s; recent %+v", what, w.recent)
		}
		if _, err := w.next(left); err != nil {
			w.t.Fatalf("waiting for %s: %v", what, err)
		}
	}
}
