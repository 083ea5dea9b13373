package redisstore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// scriptCalls counts the script calls sent, pipelined ones included.
type scriptCalls struct{ n atomic.Int64 }

func (c *scriptCalls) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *scriptCalls) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "evalsha" || cmd.Name() == "eval" {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}
func (c *scriptCalls) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			if cmd.Name() == "evalsha" || cmd.Name() == "eval" {
				c.n.Add(1)
			}
		}
		return next(ctx, cmds)
	}
}

// TestAroundWindowsShareOneCall: a hundred viewers each watching their own
// member cost one script call per period, not one each, and every window is
// what Around gives that member alone; a member not on the board is
// ErrNotFound on its own.
func TestAroundWindowsShareOneCall(t *testing.T) {
	for _, style := range []board.RankStyle{board.Competition, board.Dense, board.Ordinal} {
		t.Run(string(style), func(t *testing.T) {
			f := newFixture(t)
			b := f.board(board.Board{ID: testBoardID(t), RankStyle: style, Periods: []board.Kind{board.Weekly, board.AllTime}})
			for i := range 200 {
				f.submit(b, fmt.Sprintf("m%03d", i), float64(i%37), board.Set) // ties
			}
			all, week := b.Current(board.AllTime, f.clock.Now()), b.Current(board.Weekly, f.clock.Now())
			var qs []ViewQuery
			for i := 0; i < 200; i += 2 {
				qs = append(qs, ViewQuery{Board: b, Period: all, Member: fmt.Sprintf("m%03d", i), Radius: 2})
			}
			qs = append(qs,
				ViewQuery{Board: b, Period: all, Member: "nobody", Radius: 2},
				ViewQuery{Board: b, Period: week, Member: "m007", Radius: 2},
				ViewQuery{Board: b, Period: all, Offset: 50, Limit: 25},
				// Windows far apart (ranges of their own, one sliding at the end).
				ViewQuery{Board: b, Period: all, Member: "m000", Radius: 1},
				ViewQuery{Board: b, Period: all, Member: "m050", Radius: 1},
				ViewQuery{Board: b, Period: all, Member: "m199", Radius: 1},
				// A window wider than the board.
				ViewQuery{Board: b, Period: all, Member: "m010", Radius: board.MaxAround},
			)
			f.store.ReadViews(f.ctx, qs[:1]) // loads the script: NOSCRIPT retries are not the point here
			calls := &scriptCalls{}
			f.rdb.AddHook(calls)
			got := f.store.ReadViews(f.ctx, qs)
			if n := calls.n.Load(); n != 5 {
				t.Errorf("%d script calls for around-me windows of 3 radii in one period, one of another and a page, want 5", n)
			}
			for i, q := range qs {
				var want ViewResult
				if q.Member != "" {
					want.Page, want.Position, want.Err = f.store.Around(f.ctx, b, q.Period, q.Member, q.Radius)
				} else {
					want.Page, want.Err = f.store.Page(f.ctx, b, q.Period, q.Offset, q.Limit)
					want.Position = want.Page.Matched
				}
				if q.Member == "nobody" {
					if !errors.Is(got[i].Err, board.ErrNotFound) {
						t.Errorf("a member not on the board: %v, want ErrNotFound", got[i].Err)
					}
					continue
				}
				if !reflect.DeepEqual(got[i], want) {
					t.Fatalf("query %d (%+v):\n got %+v\nwant %+v", i, q, got[i], want)
				}
			}
		})
	}
}

// listsMeet holds each list view's script call until another one is in
// flight beside it, or a while has passed (late).
type listsMeet struct {
	inflight atomic.Int64
	met      chan struct{}
	once     sync.Once
	late     atomic.Bool
}

func (h *listsMeet) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *listsMeet) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if (cmd.Name() != "evalsha" && cmd.Name() != "eval") || !strings.Contains(fmt.Sprint(cmd.Args()), "lv-") {
			return next(ctx, cmd)
		}
		if h.inflight.Add(1) >= 2 {
			h.once.Do(func() { close(h.met) })
		}
		defer h.inflight.Add(-1)
		select {
		case <-h.met:
		case <-time.After(5 * time.Second):
			h.late.Store(true)
		}
		return next(ctx, cmd)
	}
}
func (h *listsMeet) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestListViewsReadTogether: the list views of a batch are read side by
// side, not one round trip after another: a client's hundred sockets, each
// a list of its own, must not hold up the hub's tick for every board by a
// hundred round trips.
func TestListViewsReadTogether(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{})
	for m, v := range map[string]float64{"lv-a": 3, "lv-b": 2, "lv-c": 1} {
		if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: m, Score: v, Op: board.Set}, tester); err != nil {
			t.Fatal(err)
		}
	}
	h := &listsMeet{met: make(chan struct{})}
	f.rdb.AddHook(h)
	p := b.Current(board.AllTime, f.clock.Now())
	res := f.store.ReadViews(f.ctx, []ViewQuery{
		{Board: b, Period: p, Members: []string{"lv-a", "lv-b"}},
		{Board: b, Period: p, Offset: 0, Limit: 10},
		{Board: b, Period: p, Members: []string{"lv-c", "lv-b"}},
	})
	for i, r := range res {
		if r.Err != nil || len(r.Page.Entries) == 0 {
			t.Errorf("view %d: %+v", i, r)
		}
	}
	if got := res[2].Page.Entries[0].Member + " " + res[2].Page.Entries[1].Member; got != "lv-b lv-c" {
		t.Errorf("the second list: %s", got)
	}
	if h.late.Load() {
		t.Error("the list views were read one after the other")
	}
}
