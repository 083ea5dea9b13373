package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// gate holds the first script call until released, so a test can queue
// submissions behind a call in flight deterministically.
type gate struct {
	once    sync.Once
	entered chan struct{} // closed when the first call is held
	release chan struct{}
	calls   chan int // the number of items of each submit script call
}

func (g *gate) DialHook(next redis.DialHook) redis.DialHook { return next }
func (g *gate) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); name == "evalsha" || name == "eval" {
			g.once.Do(func() { close(g.entered); <-g.release })
			g.calls <- len(cmd.Args())
		}
		return next(ctx, cmd)
	}
}
func (g *gate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (s *Store) queued(board string) (n int) {
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	for k, q := range s.group.queues {
		if k.board == board {
			n += len(q)
		}
	}
	return n
}

// TestGroupCommit: submissions that arrive while a call is in flight go in
// the next call together, each with its own outcome: a bad one, a reused
// key or a repeated key never fails the others, and the call is one audit
// entry.
func TestGroupCommit(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}})
	f.submit(b, "big", board.MaxExact, board.Set)
	run := fmt.Sprint(time.Now().UnixNano()) // idempotency keys outlive a deleted board for their TTL
	if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "kept", Score: 7, IdempotencyKey: "used" + run}, tester); err != nil {
		t.Fatal(err)
	}
	g := &gate{entered: make(chan struct{}), release: make(chan struct{}), calls: make(chan int, 10)}
	rdb := srv.Client(t)
	rdb.AddHook(g)
	s := NewStore(rdb, WithClock(f.clock.Now))
	if _, err := s.Board(f.ctx, b.ID); err != nil { // cached: the calls are the scripts alone
		t.Fatal(err)
	}
	auditBefore := f.rdb.XLen(f.ctx, AuditStream(b.ID)).Val()

	type outcome struct {
		res board.Result
		err error
	}
	subs := []board.Submission{{Member: "first", Score: 1}} // held in flight while the rest queue
	for i := range 50 {
		subs = append(subs, board.Submission{Member: fmt.Sprintf("m%02d", i), Score: float64(i)})
	}
	subs = append(subs,
		board.Submission{Member: "big", Score: 1},                                    // would leave the exact range
		board.Submission{Member: "kept", Score: 8, IdempotencyKey: "used" + run},     // key used by another request
		board.Submission{Member: "twice", Score: 5, IdempotencyKey: "retried" + run}, // sent twice: applied once
		board.Submission{Member: "twice", Score: 5, IdempotencyKey: "retried" + run},
		board.Submission{Member: "", Score: 1}, // refused before any call
	)
	out := make([]outcome, len(subs))
	var wg sync.WaitGroup
	for i, sub := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.Submit(f.ctx, b.ID, sub, tester)
			out[i] = outcome{r, err}
		}()
		if i == 0 {
			<-g.entered // the first is in flight
		}
	}
	waitFor(t, func() bool { return s.queued(b.ID) == len(subs)-1 })
	close(g.release)
	wg.Wait()

	// The first alone, then everything that queued behind it but the
	// repeated key, then that one.
	var calls []int
	for len(g.calls) > 0 {
		calls = append(calls, <-g.calls)
	}
	if len(calls) != 3 {
		t.Fatalf("%d script calls (%v), want 3", len(calls), calls)
	}
	for i := range 50 {
		o := out[1+i]
		if c, _ := o.res.Change(board.AllTime); o.err != nil || c.After.Score != float64(i) || !c.After.Ranked {
			t.Fatalf("m%02d: %+v %v", i, o.res, o.err)
		}
	}
	if err := out[51].err; !errors.Is(err, board.ErrInvalidScore) {
		t.Fatalf("out of range: %v", err)
	}
	if err := out[52].err; !errors.Is(err, board.ErrIdempotencyReused) {
		t.Fatalf("reused key: %v", err)
	}
	a, b2 := out[53], out[54]
	if a.err != nil || b2.err != nil || a.res.Replayed == b2.res.Replayed {
		t.Fatalf("a key sent twice: %+v %v / %+v %v", a.res, a.err, b2.res, b2.err)
	}
	if err := out[55].err; !errors.Is(err, board.ErrInvalidMember) {
		t.Fatalf("empty member: %v", err)
	}
	if st, err := f.store.Member(f.ctx, b, "twice"); err != nil || len(st) == 0 || st[0].Score != 5 {
		t.Fatalf("twice: %+v %v", st, err)
	}
	// One audit entry per call that applied something: the third only
	// replayed.
	if n := f.rdb.XLen(f.ctx, AuditStream(b.ID)).Val() - auditBefore; n != 2 {
		t.Fatalf("%d audit entries, want 2", n)
	}
}

// TestSubmitOutlivesItsCaller: a caller that gives up (a client hanging up)
// does not abandon the write: it is applied and audited.
func TestSubmitOutlivesItsCaller(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}})
	before := f.rdb.XLen(f.ctx, AuditStream(b.ID)).Val() // the log outlives earlier runs' boards
	ctx, cancel := context.WithCancel(f.ctx)
	cancel()
	if _, err := f.store.Submit(ctx, b.ID, board.Submission{Member: "ann", Score: 3}, tester); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.SubmitBatch(ctx, b.ID, []board.Submission{{Member: "bob", Score: 4}}, board.BatchOptions{By: tester}); err != nil {
		t.Fatal(err)
	}
	if n := f.rdb.XLen(f.ctx, AuditStream(b.ID)).Val() - before; n != 2 {
		t.Fatalf("%d audit entries, want 2", n)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestGroupCommitKeepsArrivalOrder: items sharing a call still tie in the
// order they arrived (earliest tie-break), not by member id.
func TestGroupCommitKeepsArrivalOrder(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}, RankStyle: board.Ordinal})
	g := &gate{entered: make(chan struct{}), release: make(chan struct{}), calls: make(chan int, 10)}
	rdb := srv.Client(t)
	rdb.AddHook(g)
	s := NewStore(rdb, WithClock(f.clock.Now))
	if _, err := s.Board(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i, m := range []string{"first", "zed", "amy"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Submit(f.ctx, b.ID, board.Submission{Member: m, Score: 100, Op: board.Set}, tester); err != nil {
				t.Error(err)
			}
		}()
		if i == 0 {
			<-g.entered
		} else {
			waitFor(t, func() bool { return s.queued(b.ID) == i })
		}
	}
	close(g.release)
	wg.Wait()
	if got := fmt.Sprint(rows(f.page(b, board.AllTime, 0, 3))); got != "[1 first 100 2 zed 100 3 amy 100]" {
		t.Fatalf("tied in the order %s", got)
	}
}

// TestReplayOfAResultWithoutRanks: a result stored without ranks replays as
// on the board, whoever asks again.
func TestReplayOfAResultWithoutRanks(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}})
	key := fmt.Sprint("nr-", time.Now().UnixNano())
	sub := board.Submission{Member: "ann", Score: 5, IdempotencyKey: key}
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{sub}, board.BatchOptions{By: tester, NoRanks: true}); err != nil {
		t.Fatal(err)
	}
	r, err := f.store.Submit(f.ctx, b.ID, sub, tester)
	if c, _ := r.Change(board.AllTime); err != nil || !r.Replayed || !c.After.Ranked || c.After.Score != 5 {
		t.Fatalf("replay %+v %v", r, err)
	}
	recent, err := f.store.Recent(f.ctx, b, 1)
	if err != nil || len(recent) != 1 || !recent[0].Changes[0].After.Ranked {
		t.Fatalf("recent %+v %v", recent, err)
	}
}

// TestAuditKeepsRows: each audit stream keeps its newest rows, counted in
// scores, not entries (a batch is one entry of many rows).
func TestAuditKeepsRows(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}})
	s := NewStore(f.rdb, WithClock(f.clock.Now), WithAuditKeep(100))
	// A long actor, as a key named with 64 CJK characters makes it.
	by := board.Author{Actor: "key:" + strings.Repeat("名", 64) + " (k1234567)"}
	for i := range 12 {
		subs := make([]board.Submission, 30)
		for j := range subs {
			subs[j] = board.Submission{Member: fmt.Sprintf("m%d", j), Score: float64(i)}
		}
		if _, err := s.SubmitBatch(f.ctx, b.ID, subs, board.BatchOptions{By: by}); err != nil {
			t.Fatal(err)
		}
	}
	for _, stream := range []string{AuditStream(b.ID), AuditActorStream(b.ID, by.Actor)} {
		msgs, err := f.rdb.XRange(f.ctx, stream, "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for _, m := range msgs {
			n, _ := strconv.Atoi(fmt.Sprint(m.Values["n"]))
			rows += n
		}
		counted, _ := f.rdb.HGet(f.ctx, AuditRows(b.ID), stream).Int()
		if rows > 100 || rows < 70 || rows != counted {
			t.Fatalf("%s holds %d rows in %d entries, counted %d; keep 100", stream, rows, len(msgs), counted)
		}
	}
}
