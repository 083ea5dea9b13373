package memberdata

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// holdPage holds an archive pass of one period once it has read its
// snapshot's rows, until release is closed.
type holdPage struct {
	period            string // the period's zset key
	mu                sync.Mutex
	copying, held     bool
	reached, released chan struct{}
}

func (h *holdPage) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *holdPage) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *holdPage) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		args := fmt.Sprint(cmd.Args()...)
		if !strings.Contains(args, ":snap:") {
			return err
		}
		h.mu.Lock()
		hold := false
		switch {
		case strings.Contains(args, h.period):
			h.copying = true // the pass's snapshot of the period
		case h.copying && !h.held && err == nil && slices.Contains(cmd.Args(), any("page")):
			h.held, hold = true, true // its rows, read
		}
		h.mu.Unlock()
		if hold {
			close(h.reached)
			<-h.released
		}
		return err
	}
}

// TestEraseWhileAPeriodIsFirstArchived: an archive pass has read the rows
// of a period closed since the last pass (the archive holds nothing of it
// yet) when the member is erased. The erasure waits for the pass, so that
// the rows it writes are renamed too: they held the old id and name once
// the erasure had answered (until a later pass copied the period again).
func TestEraseWhileAPeriodIsFirstArchived(t *testing.T) {
	backends(t, func(t *testing.T, f *fixture) {
		f.clock.Set(time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC))
		var err error
		if f.b, err = f.svc.Store.CreateBoard(f.ctx, board.Board{ID: "solo", Title: "Solo", Periods: []board.Kind{board.Weekly, board.AllTime}}); err != nil {
			t.Fatal(err)
		}
		for _, s := range []board.Submission{{Member: "alice", Name: "Alice Liddell", Score: 5}, {Member: "bob", Score: 3}} {
			if _, err := f.svc.Store.Submit(f.ctx, f.b.ID, s, root); err != nil {
				t.Fatal(err)
			}
		}
		f.clock.Set(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)) // 2026-W47 has closed, and is not archived yet
		hold := &holdPage{period: "lb:{solo}:w:2026-W47", reached: make(chan struct{}), released: make(chan struct{})}
		f.rdb.AddHook(hold)
		passed := make(chan error, 1)
		go func() { _, err := f.svc.Archiver.Due(f.ctx); passed <- err }()
		select {
		case <-hold.reached:
		case <-time.After(30 * time.Second):
			t.Fatal("no archive pass of 2026-W47")
		}
		go func() { time.Sleep(300 * time.Millisecond); close(hold.released) }()
		out, err := f.svc.Erase(f.ctx, &f.b, "alice", board.Pseudonymise, root)
		if err != nil || out.Status != board.ErasedNow {
			t.Fatalf("erase: %+v %v", out, err)
		}
		if err := <-passed; err != nil {
			t.Logf("the pass: %v", err)
		}
		// The erasure answered that it was done: the pass it overlapped
		// brought nothing of the member back.
		if left := excerpt(tablesDump(t, f.target), "alice"); left != "" {
			t.Errorf("the archive holds the member once erased:\n%s", left)
		}
	})
}
