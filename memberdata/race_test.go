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

// ProcessPipelineHook holds the pass once it has read rows of the copy as
// plain commands (redisstore/lean.go: ZCARD and the rows in one MULTI).
func (h *holdPage) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		rows := false
		for _, cmd := range cmds {
			name := strings.ToLower(cmd.Name())
			rows = rows || (strings.Contains(fmt.Sprint(cmd.Args()...), ":snap:") && (name == "zrange" || name == "zrevrange"))
		}
		if rows && err == nil {
			h.rowsRead()
		}
		return err
	}
}

// ProcessHook notes the pass's snapshot of the period, and holds it once
// it has read rows of the copy with view.lua (the boards lean.go leaves to it).
func (h *holdPage) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		args := fmt.Sprint(cmd.Args()...)
		if !strings.Contains(args, ":snap:") {
			return err
		}
		switch {
		case strings.Contains(args, h.period):
			h.mu.Lock()
			h.copying = true // the pass's snapshot of the period
			h.mu.Unlock()
		case err == nil && slices.Contains(cmd.Args(), any("page")):
			h.rowsRead()
		}
		return err
	}
}

// rowsRead holds the first read of the copy's rows until released.
func (h *holdPage) rowsRead() {
	h.mu.Lock()
	hold := h.copying && !h.held
	h.held = h.held || hold
	h.mu.Unlock()
	if hold {
		close(h.reached)
		<-h.released
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
