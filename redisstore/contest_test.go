package redisstore

import (
	"errors"
	"strings"
	"testing"
	"time"

	"podium/board"
)

// TestContestWindow: a board takes writes from its opening to its close,
// single, batched and through FCALL; outside, each is refused with when
// it opens or closed, and nothing is written. The window round-trips
// through the definition.
func TestContestWindow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	opens := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	closes := opens.Add(2 * time.Hour)
	b := f.board(board.Board{OpensAt: opens, ClosesAt: closes})
	if got, _ := f.store.ReadBoard(f.ctx, b.ID); !got.OpensAt.Equal(opens) || !got.ClosesAt.Equal(closes) {
		t.Fatalf("stored window: %v %v", got.OpensAt, got.ClosesAt)
	}
	try := func(at time.Time) error {
		f.clock.Set(at)
		_, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Score: 1}, tester)
		if err == nil {
			_, err = f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{{Member: "bob", Score: 1}}, board.BatchOptions{By: tester})
		}
		return err
	}
	var ce *board.ContestError
	if err := try(opens.Add(-time.Second)); !errors.As(err, &ce) || !ce.Early || !ce.At.Equal(opens) || !errors.Is(err, board.ErrContestClosed) {
		t.Fatalf("before the opening: %v", err)
	}
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{{Member: "bob", Score: 1}}, board.BatchOptions{By: tester}); !errors.Is(err, board.ErrContestClosed) {
		t.Fatalf("a batch before the opening: %v", err)
	}
	if n, _ := f.rdb.ZCard(f.ctx, ZSetKey(b.ID, board.Period{Kind: board.AllTime})).Result(); n != 0 {
		t.Fatalf("%d members written before the opening", n)
	}
	if err := try(opens); err != nil {
		t.Fatalf("at the opening: %v", err)
	}
	if err := try(closes.Add(-time.Second)); err != nil {
		t.Fatalf("just before the close: %v", err)
	}
	if err := try(closes); !errors.As(err, &ce) || ce.Early || !ce.At.Equal(closes) || !strings.Contains(err.Error(), "closed at 2026-11-22T12:00:00Z") {
		t.Fatalf("at the close: %v", err)
	}
	if pg := f.page(b, board.AllTime, 0, 10); len(pg.Entries) != 2 || pg.Entries[0].Score != 2 {
		t.Fatalf("standings: %+v", pg.Entries)
	}
	// Outside writers: FCALL runs on Redis' clock, long past the close.
	if err := f.store.LoadFunctions(f.ctx); err != nil {
		t.Fatal(err)
	}
	_, err := f.rdb.FCall(f.ctx, "podium_submit", []string{defKey(b.ID)}, "cy", "incr", "5").Text()
	if err == nil || !strings.Contains(err.Error(), "the contest closed at") {
		t.Fatalf("FCALL after the close: %v", err)
	}
	// Taking the window off opens the board again.
	upd := *b
	upd.OpensAt, upd.ClosesAt = time.Time{}, time.Time{}
	if _, err := f.store.UpdateBoard(f.ctx, upd); err != nil {
		t.Fatal(err)
	}
	if _, err := f.rdb.FCall(f.ctx, "podium_submit", []string{defKey(b.ID)}, "cy", "incr", "5").Text(); err != nil {
		t.Fatalf("FCALL without a window: %v", err)
	}
}
