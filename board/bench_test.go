package board

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The benchmarks share one board of 1,000,000 members, loaded once with
// pipelining through the real submit script. Scores are drawn from 0-99,999,
// so ties are everywhere. Run them with `make bench`, which also runs
// redis-benchmark ZINCRBY on this machine for comparison.
const benchMembers = 1_000_000

var (
	benchOnce  sync.Once
	benchBoard *Board
	benchStore *Store
)

func benchSetup(b *testing.B) (*Store, *Board, Period) {
	b.Helper()
	benchOnce.Do(func() {
		// Not srv.Client: that one closes with the first benchmark.
		benchStore = NewStore(redis.NewClient(&redis.Options{Addr: srv.Addr}))
		ctx := context.Background()
		_ = benchStore.DeleteBoard(ctx, "bench-1m")
		bd, err := benchStore.CreateBoard(ctx, Board{ID: "bench-1m", Title: "Bench", Periods: []Kind{Daily, AllTime}})
		if err != nil {
			b.Fatal(err)
		}
		benchBoard = &bd
		start := time.Now()
		rng := rand.New(rand.NewPCG(1, 2))
		bulkLoad(b, benchStore, benchBoard, benchMembers, func(i int) Submission {
			return Submission{Member: fmt.Sprintf("player-%07d", i), Score: float64(rng.IntN(100_000)), Op: Set}
		}, time.Now())
		b.Logf("loaded %d members in %v", benchMembers, time.Since(start).Round(time.Millisecond))
	})
	if benchBoard == nil {
		b.Fatal("bench board not loaded")
	}
	return benchStore, benchBoard, benchBoard.Current(AllTime, time.Now())
}

func BenchmarkSubmit(b *testing.B) {
	s, bd, _ := benchSetup(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	b.ResetTimer()
	for b.Loop() {
		m := fmt.Sprintf("player-%07d", rng.IntN(benchMembers))
		if _, err := s.Submit(ctx, bd.ID, Submission{Member: m, Score: 1, Op: Incr}, tester); err != nil {
			b.Fatal(err)
		}
	}
}

func benchPage(b *testing.B, offset int) {
	s, bd, all := benchSetup(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		pg, err := s.Page(ctx, bd, all, offset, 50)
		if err != nil || len(pg.Entries) != 50 {
			b.Fatal(err)
		}
	}
}

func BenchmarkPageTop(b *testing.B)    { benchPage(b, 0) }
func BenchmarkPageMiddle(b *testing.B) { benchPage(b, benchMembers/2) }

func BenchmarkRank(b *testing.B) {
	s, bd, all := benchSetup(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	b.ResetTimer()
	for b.Loop() {
		m := fmt.Sprintf("player-%07d", rng.IntN(benchMembers))
		if st, err := s.Ranks(ctx, bd, all, []string{m}); err != nil || !st[0].Ranked {
			b.Fatal(err)
		}
	}
}

func BenchmarkAround(b *testing.B) {
	s, bd, all := benchSetup(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	b.ResetTimer()
	for b.Loop() {
		m := fmt.Sprintf("player-%07d", rng.IntN(benchMembers))
		if pg, _, err := s.Around(ctx, bd, all, m, 5); err != nil || len(pg.Entries) != 11 {
			b.Fatal(err)
		}
	}
}
