package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// bulkLoad submits n generated scores through the real submit script, pipelined
// in batches: how the benchmarks and cost tests fill big boards quickly.
func bulkLoad(tb testing.TB, s *Store, b *board.Board, n int, gen func(i int) board.Submission, now time.Time) {
	tb.Helper()
	ctx := context.Background()
	if err := scripts.submit.Load(ctx, s.rdb).Err(); err != nil {
		tb.Fatal(err)
	}
	// Two loaders, each its own chunks: one builds its next pipeline while
	// Redis runs the other's. Each item carries its own time, so the order
	// the chunks land in changes nothing.
	const batch, loaders = 5000, 2
	errs := make(chan error, loaders)
	for w := range loaders {
		go func() {
			for start := w * batch; start < n; start += loaders * batch {
				pipe := s.rdb.Pipeline()
				for i := start; i < min(n, start+batch); i++ {
					sub := gen(i)
					if err := board.CheckSubmission(b, &sub); err != nil {
						errs <- err
						return
					}
					c, _ := s.submitCall(b, []board.Submission{sub}, nil, board.BatchOptions{By: tester}, true, now.Add(time.Duration(i)*time.Microsecond))
					scripts.submit.EvalSha(ctx, pipe, c.keys, c.argv...)
				}
				if _, err := pipe.Exec(ctx); err != nil {
					errs <- fmt.Errorf("load: %w", err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range loaders {
		if err := <-errs; err != nil {
			tb.Fatal(err)
		}
	}
}

// commandCounter counts round trips (a pipeline is one).
type commandCounter struct{ n atomic.Int64 }

func (c *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.n.Add(1); return next(ctx, cmd) }
}
func (c *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.n.Add(1); return next(ctx, cmds) }
}

// serverCalls sums the calls of every command Redis ran, scripts' inner calls
// included, as INFO commandstats reports them.
func serverCalls(t *testing.T, rdb *redis.Client) int {
	t.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, line := range strings.Split(info, "\n") {
		if !strings.HasPrefix(line, "cmdstat_") || strings.HasPrefix(line, "cmdstat_info:") {
			continue
		}
		_, rest, _ := strings.Cut(line, "calls=")
		n, _ := strconv.Atoi(strings.SplitN(rest, ",", 2)[0])
		total += n
	}
	return total
}

// TestPageCostInAHugeTieGroup shows that ranks cost no scan: a 50-row page in
// the middle of 20,000 members tied at 0 is at most two round trips, and
// Redis runs a few dozen commands for it, not thousands. (The counts, not
// the time, are what it checks: they do not grow with the group, so a
// bigger one only makes the suite slower.)
func TestPageCostInAHugeTieGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 20,000 members; run without -short")
	}
	f := newFixture(t)
	// Dense, so writes keep the tie-group index; the reads below also read
	// it as the other styles, which do not use it.
	b := f.board(board.Board{Fields: []board.Field{{Name: "level", Desc: true}}, RankStyle: board.Dense})
	now := f.clock.Now()
	const tied = 20_000
	bulkLoad(t, f.store, b, tied+200, func(i int) board.Submission {
		switch {
		case i < 100: // above the group
			return board.Submission{Member: fmt.Sprintf("top%03d", i), Score: float64(1000 - i), Op: board.Set}
		case i < 200: // same score, but a better extra field: ranks above the group
			return board.Submission{Member: fmt.Sprintf("lvl%03d", i), Score: 0, Op: board.Set, Fields: []int64{int64(i)}}
		}
		return board.Submission{Member: fmt.Sprintf("m%06d", i), Score: 0, Op: board.Set}
	}, now)
	all := b.Current(board.AllTime, now)
	if _, err := f.store.Page(f.ctx, b, all, 0, 1); err != nil { // loads the script once (EVALSHA falls back to EVAL)
		t.Fatal(err)
	}
	stats := srv.Client(t) // INFO on its own connection, outside the count
	counter := &commandCounter{}
	f.rdb.AddHook(counter)
	for _, style := range []board.RankStyle{board.Competition, board.Dense, board.Ordinal} {
		b.RankStyle = style
		for _, offset := range []int{0, 150, 250, tied / 2, tied + 150} {
			calls := serverCalls(t, stats)
			before := counter.n.Load()
			pg, err := f.store.Page(f.ctx, b, all, offset, 50)
			if err != nil {
				t.Fatal(err)
			}
			trips := counter.n.Load() - before
			inner := serverCalls(t, stats) - calls - 1 // less the first INFO
			// Dense: one script; the others: their rows in one MULTI and
			// their names, or, deep in a tie group, the rows and the script.
			if trips > 2 || (style == board.Dense && trips != 1) || inner > 40 {
				t.Fatalf("%s page at %d: %d round trips, %d Redis commands", style, offset, trips, inner)
			}
			t.Logf("%-11s page of 50 at %6d: %d round trips, %d commands inside Redis", style, offset, trips, inner)
			if len(pg.Entries) != 50 || pg.Total != tied+200 {
				t.Fatalf("%s page at %d: %d rows of %d", style, offset, len(pg.Entries), pg.Total)
			}
			var want int
			switch {
			case style == board.Ordinal:
				want = offset + 1
			case offset < 200:
				want = offset + 1 // distinct scores and levels down to position 199
			case style == board.Competition:
				want = 201
			default:
				want = 201 // 100 scores + 100 levels above, then the group
			}
			if got := pg.Entries[0].Rank; got != want {
				t.Fatalf("%s page at %d: first rank %d, want %d", style, offset, got, want)
			}
			if style != board.Ordinal && offset >= 200 && pg.Entries[49].Rank != want {
				t.Fatalf("%s: tied rows ranked differently: %d", style, pg.Entries[49].Rank)
			}
		}
		st, err := f.store.Ranks(f.ctx, b, all, []string{"m010000"})
		if err != nil || !st[0].Ranked {
			t.Fatal(st, err)
		}
	}
}

// TestSubmitIsOneRoundTrip: with the definition cached, a submission is its
// script alone, and a definition changed elsewhere costs one more read, once.
func TestSubmitIsOneRoundTrip(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime}})
	rdb := srv.Client(t)
	cc := &commandCounter{}
	rdb.AddHook(cc)
	s := NewStore(rdb, WithClock(f.clock.Now))
	if err := scripts.submit.Load(f.ctx, rdb).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Score: 1}, tester); err != nil { // reads the definition
		t.Fatal(err)
	}
	cc.n.Store(0)
	for i := range 10 {
		if _, err := s.Submit(f.ctx, b.ID, board.Submission{Member: fmt.Sprintf("m%d", i), Score: 1}, tester); err != nil {
			t.Fatal(err)
		}
	}
	if n := cc.n.Load(); n != 10 {
		t.Fatalf("10 submissions took %d round trips, want 10", n)
	}
	upd := *b
	upd.Title = "Renamed elsewhere"
	if _, err := f.store.UpdateBoard(f.ctx, upd); err != nil {
		t.Fatal(err)
	}
	cc.n.Store(0)
	if _, err := s.Submit(f.ctx, b.ID, board.Submission{Member: "bob", Score: 1}, tester); err != nil {
		t.Fatal(err)
	}
	if n := cc.n.Load(); n != 3 { // refused as stale, read again, written
		t.Fatalf("a submission after a change elsewhere took %d round trips, want 3", n)
	}
	if got, _ := s.Board(f.ctx, b.ID); got.Title != "Renamed elsewhere" {
		t.Fatalf("the cache kept the old definition: %q", got.Title)
	}
}

// TestWriteCost reports what a write costs inside Redis, and checks that a
// batch without ranks does less per score and leaves the same board.
func TestWriteCost(t *testing.T) {
	f := newFixture(t)
	stats := srv.Client(t)
	mk := func() *board.Board {
		b := f.board(board.Board{ID: testBoardID(t) + fmt.Sprint(time.Now().UnixNano()%1e6), Periods: []board.Kind{board.Daily, board.AllTime}})
		bulkLoad(t, f.store, b, 1000, func(i int) board.Submission {
			return board.Submission{Member: fmt.Sprintf("m%04d", i), Score: float64(i % 97), Op: board.Set}
		}, f.clock.Now())
		return b
	}
	// One score for a member already on a day + all-time board.
	b := mk()
	f.submit(b, "m0001", 1, board.Incr) // loads the script
	calls := serverCalls(t, stats)
	f.submit(b, "m0002", 1, board.Incr)
	single := serverCalls(t, stats) - calls - 1
	t.Logf("single score, day + all time, existing member: %d commands inside Redis", single)

	batch := func(b *board.Board, ranks bool) int {
		subs := make([]board.Submission, 500)
		for i := range subs {
			subs[i] = board.Submission{Member: fmt.Sprintf("m%04d", (i*7)%1200), Score: float64(i % 13)}
		}
		calls := serverCalls(t, stats)
		res, err := f.store.SubmitBatch(f.ctx, b.ID, subs, board.BatchOptions{By: tester, NoRanks: !ranks})
		if err != nil {
			t.Fatal(err)
		}
		n := serverCalls(t, stats) - calls - 1
		for _, r := range res {
			for _, c := range r.Changes {
				if !c.After.Ranked || (c.After.Rank == 0) == ranks {
					t.Fatalf("ranks %v: change %+v", ranks, c)
				}
			}
		}
		return n
	}
	with, without := mk(), mk()
	batch(with, true) // loads the script
	batch(without, false)
	withN, withoutN := batch(with, true), batch(without, false)
	t.Logf("batch of 500: %.2f commands per score with ranks, %.2f without (a command may carry many members)", float64(withN)/500, float64(withoutN)/500)
	if withoutN >= withN {
		t.Fatalf("without ranks %d commands, with %d", withoutN, withN)
	}
	for _, k := range []board.Kind{board.Daily, board.AllTime} {
		a := append(rows(f.page(with, k, 0, 1000)), rows(f.page(with, k, 1000, 1000))...)
		z := append(rows(f.page(without, k, 0, 1000)), rows(f.page(without, k, 1000, 1000))...)
		slices.Sort(a) // tied members may sit in another order: the boards' clocks differ
		slices.Sort(z)
		if len(a) < 1000 || fmt.Sprint(a) != fmt.Sprint(z) {
			for i := range a {
				if i < len(z) && a[i] != z[i] {
					t.Fatalf("%s: boards differ (%d and %d rows): %q / %q", k, len(a), len(z), a[i], z[i])
				}
			}
			t.Fatalf("%s: boards differ (%d and %d rows)", k, len(a), len(z))
		}
	}
}
