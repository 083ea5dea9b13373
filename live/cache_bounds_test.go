package live

import (
	"context"
	"fmt"
	"podium/board"
	"podium/redisstore"
	"sync/atomic"
	"testing"
	"time"
)

// The read cache's bounds: what it keeps, how much, and for how long.

// TestCacheKeepsWhatIsRead: a flood of answers read once (random members'
// standings) makes room by dropping each other, not the page every
// reader asks for.
func TestCacheKeepsWhatIsRead(t *testing.T) {
	f := newLiveFixture(t, Options{PollInterval: time.Minute})
	b := f.board("flood", "ann", 5, "bob", 3)
	c := f.hub.NewCache(f.store)
	c.max = 64
	c.tick, c.fresh = time.Hour, func() bool { return false } // every answer servable for an hour: only how often each is read decides
	ctx := context.Background()
	p := b.Current(board.AllTime, f.store.Now())
	for range 3 { // read, then served twice
		if _, err := c.Page(ctx, b, p, 0, 10); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 1000 {
		if _, err := c.Member(ctx, b, fmt.Sprintf("m%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); st.Entries > 64 {
		t.Fatalf("%d entries, bound 64", st.Entries)
	}
	checkHeld(t, c)
	k := keyOf(b, f.store.Now(), 'p')
	k.period, k.offset, k.limit = p.String(), 0, 10
	c.mu.Lock()
	_, kept := c.entries[k]
	c.mu.Unlock()
	if !kept {
		t.Error("the page read three times was dropped for answers read once")
	}
}

// TestCacheBoundsRows: pages of a thousand rows at every offset keep the
// cache within its rows, whatever they ask for.
func TestCacheBoundsRows(t *testing.T) {
	f := newLiveFixture(t, Options{PollInterval: time.Minute})
	scores := []any{}
	for i := range 300 {
		scores = append(scores, fmt.Sprintf("m%03d", i), i)
	}
	b := f.board("heavy", scores...)
	c := f.hub.NewCache(f.store)
	c.maxRows = 1000
	c.tick, c.fresh = time.Hour, func() bool { return false } // every answer servable for an hour: only the bound makes room
	p := b.Current(board.AllTime, f.store.Now())
	for offset := range 200 {
		if _, err := c.Page(context.Background(), b, p, offset, 1000); err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		rows, sum := c.rows, 0
		for _, e := range c.entries {
			if e.counted {
				sum += e.rows
			}
		}
		c.mu.Unlock()
		if rows > 1000 || rows != sum {
			t.Fatalf("after the page at %d: %d rows counted, %d kept, bound 1000", offset, rows, sum)
		}
		checkHeld(t, c)
	}
}

// TestCacheLeavesLiveStandings: an admin's read of a frozen board's live
// standings (redisstore.LiveStandings) is never kept nor served to others.
func TestCacheLeavesLiveStandings(t *testing.T) {
	f := newLiveFixture(t, Options{PollInterval: time.Minute})
	b := f.board("admin-live", "ann", 5)
	c := f.hub.NewCache(f.store)
	p := b.Current(board.AllTime, f.store.Now())
	if _, err := c.Page(redisstore.LiveStandings(context.Background()), b, p, 0, 10); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Entries != 0 {
		t.Fatalf("an admin's live read was kept: %+v", st)
	}
}

// TestCacheRowsOfAnswersReadAgain: an answer read again after its board
// changed takes the place of the old one in the row count too, so a board
// that changes all day does not fill the bound with rows no longer kept
// (after which every read would empty the cache).
func TestCacheRowsOfAnswersReadAgain(t *testing.T) {
	f := newLiveFixture(t, Options{PollInterval: time.Minute})
	b := f.board("again", "ann", 5, "bob", 3)
	c := f.hub.NewCache(f.store)
	c.maxRows = 50
	c.tick, c.fresh = time.Hour, func() bool { return false } // only this process's writes make an answer stale
	ctx := context.Background()
	p := b.Current(board.AllTime, f.store.Now())
	for range 40 { // 3 rows each time: 120 in all, the bound 50
		if _, err := c.Page(ctx, b, p, 0, 10); err != nil {
			t.Fatal(err)
		}
		c.Wrote(ctx, redisstore.ZSetKey(b.ID, p)) // the answer is read again
	}
	c.mu.Lock()
	rows, sum := c.rows, 0
	for _, e := range c.entries {
		if e.counted {
			sum += e.rows
		}
	}
	c.mu.Unlock()
	if rows != sum {
		t.Errorf("%d rows counted, %d kept", rows, sum)
	}
	checkHeld(t, c)
	if _, err := c.Page(ctx, b, p, 0, 10); err != nil {
		t.Fatal(err)
	}
	before := c.Stats()
	if _, err := c.Page(ctx, b, p, 0, 10); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Hits != before.Hits+1 {
		t.Errorf("a page read just now was read again: %+v then %+v", before, st)
	}
}

// TestCacheForgetsBoardsItKeepsNothingOf: boards come and go for as long
// as a replica runs (an outside writer's key per match, boards made and
// deleted), and every one of them is notified of. What the cache knows of
// a board it keeps no answer of, and that has not changed for a tick, is
// forgotten: it does not grow with every board ever written.
func TestCacheForgetsBoardsItKeepsNothingOf(t *testing.T) {
	r := &countingReader{}
	c := NewCache(r, time.Nanosecond, func() bool { return true }) // every change is a tick old at once
	ctx := context.Background()
	kept := &board.Board{ID: "kept", Periods: []board.Kind{board.AllTime}}
	p := kept.Current(board.AllTime, r.Now())
	for range 2 { // read, then served
		if _, err := c.Page(ctx, kept, p, 0, 10); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 100_000 {
		c.Changed(fmt.Sprintf("match-%d", i))
		c.Wrote(ctx, fmt.Sprintf("lb:{made-%d}:all", i))
	}
	if n := c.boardsKnown(); n > 10_000 {
		t.Errorf("the cache knows %d boards, and keeps no answer", n)
	}
	checkHeld(t, c)
	// The board it holds an answer of is remembered: its answer is served
	// until it changes, and read again after.
	if _, err := c.Page(ctx, kept, p, 0, 10); err != nil || r.pages.Load() != 1 {
		t.Fatalf("the answer kept was read again (%d reads), %v", r.pages.Load(), err)
	}
	c.Changed(kept.ID)
	if _, err := c.Page(ctx, kept, p, 0, 10); err != nil || r.pages.Load() != 2 {
		t.Fatalf("a change did not make the answer read again (%d reads), %v", r.pages.Load(), err)
	}
}

// countingReader answers every page with one row, and counts the pages read.
type countingReader struct{ pages atomic.Int64 }

func (r *countingReader) Now() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) }

func (r *countingReader) Page(_ context.Context, _ *board.Board, p board.Period, offset, _ int) (board.Page, error) {
	r.pages.Add(1)
	return board.Page{Period: p, Total: 1, Offset: offset, Entries: []board.Entry{{Rank: 1, Member: "ann", Name: "ann", Score: 1}}}, nil
}

func (r *countingReader) Around(context.Context, *board.Board, board.Period, string, int) (board.Page, int, error) {
	return board.Page{}, 0, board.ErrNotFound
}

func (r *countingReader) Member(context.Context, *board.Board, string) ([]board.Standing, error) {
	return nil, nil
}

func (r *countingReader) ReadViews(_ context.Context, qs []redisstore.ViewQuery) []redisstore.ViewResult {
	return make([]redisstore.ViewResult, len(qs))
}

func (r *countingReader) Race(context.Context, *board.Board, board.Period) ([]board.RacePoint, error) {
	return nil, nil
}

func (c *Cache) boardsKnown() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.boards)
}

// checkHeld: every answer kept has its board's state, which counts it.
func checkHeld(t *testing.T, c *Cache) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	held := map[string]int{}
	for k := range c.entries {
		held[k.board]++
	}
	for id, n := range held {
		if st := c.boards[id]; st == nil || st.held != n {
			t.Errorf("board %q: %d answers kept, state %+v", id, n, st)
		}
	}
	for id, st := range c.boards {
		if st.held != held[id] {
			t.Errorf("board %q: state counts %d answers, %d kept", id, st.held, held[id])
		}
	}
}
