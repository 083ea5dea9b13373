package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// The benchmarks share one board of 1,000,000 members, loaded once with
// pipelining through the real submit script. Scores are drawn from 0-99,999,
// so ties are everywhere. Run them with `make bench`, which also runs
// redis-benchmark ZINCRBY on this machine for comparison.
const benchMembers = 1_000_000

var (
	benchOnce  sync.Once
	benchBoard *board.Board
	benchStore *Store
)

func benchSetup(b *testing.B) (*Store, *board.Board, board.Period) {
	b.Helper()
	benchOnce.Do(func() {
		// Not srv.Client: that one closes with the first benchmark.
		benchStore = NewStore(redis.NewClient(&redis.Options{Addr: srv.Addr}))
		ctx := context.Background()
		_ = benchStore.DeleteBoard(ctx, "bench-1m")
		bd, err := benchStore.CreateBoard(ctx, board.Board{ID: "bench-1m", Title: "Bench", Periods: []board.Kind{board.Daily, board.AllTime}})
		if err != nil {
			b.Fatal(err)
		}
		benchBoard = &bd
		start := time.Now()
		rng := rand.New(rand.NewPCG(1, 2))
		bulkLoad(b, benchStore, benchBoard, benchMembers, func(i int) board.Submission {
			return board.Submission{Member: fmt.Sprintf("player-%07d", i), Score: float64(rng.IntN(100_000)), Op: board.Set}
		}, time.Now())
		b.Logf("loaded %d members in %v", benchMembers, time.Since(start).Round(time.Millisecond))
	})
	if benchBoard == nil {
		b.Fatal("bench board not loaded")
	}
	return benchStore, benchBoard, benchBoard.Current(board.AllTime, time.Now())
}

func BenchmarkSubmit(b *testing.B) {
	s, bd, _ := benchSetup(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	b.ResetTimer()
	done, n := measureRedis(b, s.rdb), 0
	for b.Loop() {
		n++
		m := fmt.Sprintf("player-%07d", rng.IntN(benchMembers))
		if _, err := s.Submit(ctx, bd.ID, board.Submission{Member: m, Score: 1, Op: board.Incr}, tester); err != nil {
			b.Fatal(err)
		}
	}
	done(n)
}

// BenchmarkSubmitGroup is single scores from 50 writers at once, which
// group commit gathers into shared script calls (Submit's path under load,
// as the API's single POSTs take it): Redis' cost per score, and how many
// scores a call carried.
func BenchmarkSubmitGroup(b *testing.B) {
	s, bd, _ := benchSetup(b)
	ctx := context.Background()
	var seed atomic.Uint64
	b.SetParallelism(25) // 50 writers on 2 cores
	calls := scriptsRun(b, s.rdb)
	done, n := measureRedis(b, s.rdb), atomic.Int64{}
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(13, seed.Add(1)))
		for pb.Next() {
			n.Add(1)
			m := fmt.Sprintf("player-%07d", rng.IntN(benchMembers))
			if _, err := s.Submit(ctx, bd.ID, board.Submission{Member: m, Score: 1, Op: board.Incr}, tester); err != nil {
				b.Error(err)
				return
			}
		}
	})
	done(int(n.Load()))
	b.ReportMetric(float64(n.Load())/float64(scriptsRun(b, s.rdb)-calls), "scores/call")
}

// scriptsRun is how many script calls (EVALSHA, EVAL) Redis has run.
func scriptsRun(b *testing.B, rdb redis.UniversalClient) int64 {
	b.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var calls int64
	for _, line := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(line, "cmdstat_evalsha:") || strings.HasPrefix(line, "cmdstat_eval:") {
			rest := strings.TrimPrefix(line[strings.Index(line, ":")+1:], "calls=")
			v, _ := strconv.ParseInt(rest[:strings.Index(rest, ",")], 10, 64)
			calls += v
		}
	}
	return calls
}

func benchPage(b *testing.B, offset int) {
	s, bd, all := benchSetup(b)
	ctx := context.Background()
	b.ResetTimer()
	done, n := measureRedis(b, s.rdb), 0
	for b.Loop() {
		n++
		pg, err := s.Page(ctx, bd, all, offset, 50)
		if err != nil || len(pg.Entries) != 50 {
			b.Fatal(err)
		}
	}
	done(n)
}

func BenchmarkPageTop(b *testing.B)    { benchPage(b, 0) }
func BenchmarkPageMiddle(b *testing.B) { benchPage(b, benchMembers/2) }

func BenchmarkRank(b *testing.B) {
	s, bd, all := benchSetup(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	b.ResetTimer()
	done, n := measureRedis(b, s.rdb), 0
	for b.Loop() {
		n++
		m := fmt.Sprintf("player-%07d", rng.IntN(benchMembers))
		if st, err := s.Ranks(ctx, bd, all, []string{m}); err != nil || !st[0].Ranked {
			b.Fatal(err)
		}
	}
	done(n)
}

// BenchmarkRanks1000 is a list of 1,000 members ranked in one period (the
// API's POST /ranks at its bound): one script call that holds Redis for
// its whole length.
func BenchmarkRanks1000(b *testing.B) {
	s, bd, all := benchSetup(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 10))
	list := make([]string, 1000)
	b.ResetTimer()
	done, n := measureRedis(b, s.rdb), 0
	for b.Loop() {
		n++
		for i := range list {
			list[i] = fmt.Sprintf("player-%07d", rng.IntN(benchMembers))
		}
		if _, err := s.Ranks(ctx, bd, all, list); err != nil {
			b.Fatal(err)
		}
	}
	done(n)
}

// BenchmarkMember is a member's standing in every period (day and all
// time): the API's and the member page's read.
func BenchmarkMember(b *testing.B) {
	s, bd, _ := benchSetup(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 14))
	b.ResetTimer()
	done, n := measureRedis(b, s.rdb), 0
	for b.Loop() {
		n++
		m := fmt.Sprintf("player-%07d", rng.IntN(benchMembers))
		if sts, err := s.Member(ctx, bd, m); err != nil || len(sts) != 2 || !sts[1].Ranked {
			b.Fatal(err)
		}
	}
	done(n)
}

func BenchmarkAround(b *testing.B) {
	s, bd, all := benchSetup(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	b.ResetTimer()
	done, n := measureRedis(b, s.rdb), 0
	for b.Loop() {
		n++
		m := fmt.Sprintf("player-%07d", rng.IntN(benchMembers))
		if pg, _, err := s.Around(ctx, bd, all, m, 5); err != nil || len(pg.Entries) != 11 {
			b.Fatal(err)
		}
	}
	done(n)
}

// BenchmarkWindowRoll is one roll step: 500 members of a day that has left a
// 7-day window (every member also in the 6 days still in it, the costly
// case) taken out of the window. Loading b.N×500 members comes first.
func BenchmarkWindowRoll(b *testing.B) {
	ctx := context.Background()
	s := NewStore(redis.NewClient(&redis.Options{Addr: srv.Addr}))
	_ = s.DeleteBoard(ctx, "bench-roll")
	day0 := time.Now().Add(-10 * 24 * time.Hour)
	bd, err := s.CreateBoard(ctx, board.Board{ID: "bench-roll", Title: "Bench", Periods: []board.Kind{board.Last7d}})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.DeleteBoard(ctx, bd.ID) }()
	n := b.N * rollChunk
	for d := range 7 { // day 0 leaves; days 1-6 stay in (at day 7)
		bulkLoad(b, s, &bd, n, func(i int) board.Submission {
			return board.Submission{Member: fmt.Sprintf("player-%07d", i), Score: float64(1 + i%1000)}
		}, day0.Add(time.Duration(d)*24*time.Hour))
	}
	at := NewStore(s.rdb, WithClock(func() time.Time { return day0.Add(7*24*time.Hour + time.Hour) }))
	b.ResetTimer()
	for range b.N { // not b.Loop: b.N sized the load above
		if _, err := at.RollWindows(ctx, &bd, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if more, err := at.RollWindows(ctx, &bd, 10); err != nil || more {
		b.Fatalf("left: %v %v", more, err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/member")
}

// BenchmarkFreeze is the cost of taking a freeze's copy of the bench board
// (1,000,000 members in each of its two periods, with their entries hashes):
// the COPY of every current period's keys in one script, which blocks Redis
// for its duration. It reports the Redis memory the copy takes.
func BenchmarkFreeze(b *testing.B) {
	s, bd, _ := benchSetup(b)
	ctx := context.Background()
	_, _ = s.Unfreeze(ctx, bd.ID)
	var frozen []string
	for _, k := range bd.Periods {
		z := FrozenKey(bd.ID, bd.Current(k, time.Now()))
		frozen = append(frozen, z, entriesKey(z), distinctKey(z), groupCountKey(z))
	}
	before := usedMemory(b, s)
	var grew int64
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Freeze(ctx, bd.ID, time.Time{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		grew = usedMemory(b, s) - before
		if _, err := s.Unfreeze(ctx, bd.ID); err != nil {
			b.Fatal(err)
		}
		if err := s.rdb.Del(ctx, frozen...).Err(); err != nil { // not the next freeze's cost
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(grew)/(1<<20), "MiB-copied")
}

// BenchmarkFrozenNames is the cost of a submission that names a member seen
// for the first time, on a board that is not frozen and on one that is,
// where the script first saves for the public that the member had no name
// at the freeze (frozen_name_keep in lua/lib/freeze.lua): compare the two.
func BenchmarkFrozenNames(b *testing.B) {
	for _, frozen := range []bool{false, true} {
		mode := "live"
		if frozen {
			mode = "frozen"
		}
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
			defer rdb.Close()
			s := NewStore(rdb)
			id := "bench-names-" + mode
			_ = s.DeleteBoard(ctx, id)
			bd, err := s.CreateBoard(ctx, board.Board{ID: id, Title: "Bench", Periods: []board.Kind{board.Daily, board.AllTime}})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = s.DeleteBoard(ctx, bd.ID) }()
			if frozen {
				if _, err := s.Freeze(ctx, bd.ID, time.Time{}); err != nil {
					b.Fatal(err)
				}
			}
			i := 0
			before := scriptMicros(b, rdb)
			for b.Loop() {
				i++
				sub := board.Submission{Member: fmt.Sprintf("player-%08d", i), Name: fmt.Sprintf("Player %d", i), Score: 1, Op: board.Set}
				if _, err := s.Submit(ctx, bd.ID, sub, tester); err != nil {
					b.Fatal(err)
				}
			}
			// Redis' own time in scripts, which the machine's noise touches less.
			b.ReportMetric(float64(scriptMicros(b, rdb)-before)/float64(i), "redis-µs/op")
		})
	}
}

// scriptMicros is the time Redis has spent running scripts (EVAL and
// EVALSHA), in µs, from INFO commandstats.
func scriptMicros(b *testing.B, rdb *redis.Client) int64 {
	b.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var us int64
	for _, line := range strings.Split(info, "\r\n") {
		if !strings.HasPrefix(line, "cmdstat_eval:") && !strings.HasPrefix(line, "cmdstat_evalsha:") {
			continue
		}
		for _, f := range strings.Split(line[strings.Index(line, ":")+1:], ",") {
			if v, ok := strings.CutPrefix(f, "usec="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				us += n
			}
		}
	}
	return us
}

func usedMemory(b *testing.B, s *Store) int64 {
	b.Helper()
	info, err := s.rdb.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Fatal("INFO memory has no used_memory")
	return 0
}
