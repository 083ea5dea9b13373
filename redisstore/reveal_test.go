package redisstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"podium/board"
)

// TestScheduledReveal: a freeze set to reveal at a time shows the live
// standings from that instant, and two replicas' schedulers lift it once
// (one of them tells of it); a reveal before the freeze, in the past or
// without a freeze is refused.
func TestScheduledReveal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{})
	f.submit(b, "ann", 10, board.Set)
	if _, err := f.store.ScheduleReveal(f.ctx, b.ID, f.clock.Now().Add(time.Hour)); !errors.Is(err, board.ErrNotFrozen) {
		t.Fatalf("a reveal without a freeze: %v", err)
	}
	at := f.clock.Now().Add(time.Minute)
	if _, err := f.store.Freeze(f.ctx, b.ID, at); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.ScheduleReveal(f.ctx, b.ID, at.Add(-time.Second)); len(board.FieldErrors(err)) == 0 {
		t.Fatalf("a reveal before the freeze: %v", err)
	}
	reveal := at.Add(time.Hour)
	fb, err := f.store.ScheduleReveal(f.ctx, b.ID, reveal)
	if err != nil || !fb.RevealAt.Equal(reveal) {
		t.Fatalf("schedule: %v %v", fb.RevealAt, err)
	}
	f.clock.Set(at.Add(time.Second))
	f.submit(b, "bob", 20, board.Set) // after the freeze: hidden until the reveal
	if pg := f.page(&fb, board.AllTime, 0, 10); len(pg.Entries) != 1 {
		t.Fatalf("frozen: %+v", pg.Entries)
	}
	if _, ok := fb.FrozenSince(reveal); ok {
		t.Fatal("still frozen at the reveal")
	}

	ctx, cancel := context.WithCancel(f.ctx)
	var told atomic.Int32
	var wg sync.WaitGroup
	for range 2 {
		sched := NewStore(f.rdb, WithClock(f.clock.Now))
		wg.Add(1)
		go func() {
			defer wg.Done()
			sched.RunFreezes(ctx, time.Millisecond, func(err error) {
				if ctx.Err() == nil {
					t.Error(err)
				}
			}, func(board.Board) { told.Add(1) })
		}()
	}
	f.clock.Set(reveal.Add(time.Second))
	deadline := time.Now().Add(30 * time.Second) // a bound for a broken scheduler, not a timing
	for {
		nb, err := f.store.ReadBoard(f.ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		if nb.FreezeAt.IsZero() && nb.RevealAt.IsZero() && told.Load() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the schedulers did not reveal the board")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	if n := told.Load(); n != 1 {
		t.Fatalf("the reveal was told %d times", n)
	}
	if pg := f.page(&fb, board.AllTime, 0, 10); len(pg.Entries) != 2 {
		t.Fatalf("after the reveal, even by a definition read before it: %+v", pg.Entries)
	}
	if _, err := f.store.ScheduleReveal(f.ctx, b.ID, f.clock.Now().Add(time.Hour)); !errors.Is(err, board.ErrNotFrozen) {
		t.Fatalf("a reveal after the reveal: %v", err)
	}
}
