package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// What one score costs Redis on the write path, by the shape of the script
// call that carries it: a group-commit call of single scores ("each" mode,
// as Submit sends them under load) and batches of 1,000 with and without
// ranks, on a default board (day and all time, earliest tie-break) of
// WRITE_COST_MEMBERS members (100,000 unless set; WRITE_COST_SCORES sets
// how many distinct scores they hold). Each reports Redis' CPU
// per score, the µs inside commands per score, and how much of that the
// script's own commands take (the rest of a script's µs is its Lua). The
// board's audit log keeps 5,000 rows, so the calls measured trim it.
//
//	go test ./redisstore -run '^$' -bench WriteCalls -benchtime 200x

var (
	writeCostOnce  sync.Once
	writeCostBoard *board.Board
	writeCostStore *Store
)

func writeCostMembers() int {
	if n, err := strconv.Atoi(os.Getenv("WRITE_COST_MEMBERS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// writeCostScores is how many distinct scores the board starts with
// (WRITE_COST_SCORES, 10,000 unless set): fewer make bigger tie groups.
func writeCostScores() int {
	if n, err := strconv.Atoi(os.Getenv("WRITE_COST_SCORES")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

func writeCostSetup(b *testing.B) (*Store, *board.Board) {
	b.Helper()
	writeCostOnce.Do(func() {
		// A short audit log, emptied after the load: the measured calls
		// trim entries of their own shape, as in steady state.
		writeCostStore = NewStore(redis.NewClient(&redis.Options{Addr: srv.Addr}), WithAuditKeep(5000))
		ctx := context.Background()
		_ = writeCostStore.DeleteBoard(ctx, "bench-writes")
		bd, err := writeCostStore.CreateBoard(ctx, board.Board{ID: "bench-writes", Title: "Bench", Periods: []board.Kind{board.Daily, board.AllTime}})
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		bulkLoad(b, writeCostStore, &bd, writeCostMembers(), func(i int) board.Submission {
			return board.Submission{Member: fmt.Sprintf("m%d", i), Score: float64(rng.IntN(writeCostScores())), Op: board.Set}
		}, time.Now())
		if err := writeCostStore.rdb.Del(ctx, AuditStream(bd.ID), AuditStream(bd.ID)+":rows", AuditActorStream(bd.ID, tester.Actor)).Err(); err != nil {
			b.Fatal(err)
		}
		writeCostBoard = &bd
	})
	if writeCostBoard == nil {
		b.Fatal("write cost board not loaded")
	}
	return writeCostStore, writeCostBoard
}

// cmdCost is INFO commandstats' µs: in all, and in scripts (EVALSHA, EVAL,
// FCALL, which hold their inner commands' µs too).
type cmdCost struct{ all, scripts, cpu float64 }

func cmdCostOf(b *testing.B, rdb redis.UniversalClient) cmdCost {
	b.Helper()
	info, err := rdb.Info(context.Background(), "commandstats", "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var c cmdCost
	for _, line := range strings.Split(info, "\r\n") {
		if name, rest, ok := strings.Cut(line, ":"); ok && strings.HasPrefix(name, "cmdstat_") && name != "cmdstat_info" {
			for _, f := range strings.Split(rest, ",") {
				if v, ok := strings.CutPrefix(f, "usec="); ok {
					n, _ := strconv.ParseFloat(v, 64)
					c.all += n
					switch name {
					case "cmdstat_evalsha", "cmdstat_eval", "cmdstat_fcall":
						c.scripts += n
					}
				}
			}
		}
		for _, k := range []string{"used_cpu_user:", "used_cpu_sys:"} {
			if v, ok := strings.CutPrefix(line, k); ok {
				n, _ := strconv.ParseFloat(v, 64)
				c.cpu += n * 1e6
			}
		}
	}
	return c
}

func BenchmarkWriteCalls(b *testing.B) {
	for _, tc := range []struct {
		name  string
		items int
		each  bool
		ranks bool
	}{
		{"single", 1, true, true},
		{"group20", 20, true, true},
		{"batch1000", 1000, false, true},
		{"batch1000-noranks", 1000, false, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s, bd := writeCostSetup(b)
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(3, 4))
			members := writeCostMembers()
			call := func() {
				subs := make([]board.Submission, tc.items)
				times := make([]time.Time, tc.items)
				now := time.Now()
				for i := range subs {
					subs[i] = board.Submission{Member: fmt.Sprintf("m%d", rng.IntN(members)), Score: float64(1 + rng.IntN(100)), Op: board.Incr}
					times[i] = now.Add(time.Duration(i) * time.Microsecond)
				}
				opt := board.BatchOptions{By: tester, NoRanks: !tc.ranks}
				if !tc.each {
					times = nil
				}
				refused := make([]error, len(subs))
				st, _, _, err := s.runSubmit(ctx, bd, subs, times, opt, !tc.each, refused)
				if err != nil || st != "ok" {
					b.Fatal(st, err)
				}
			}
			call() // the script loaded
			before, n := cmdCostOf(b, s.rdb), 0
			for b.Loop() {
				call()
				n += tc.items
			}
			after := cmdCostOf(b, s.rdb)
			b.ReportMetric((after.cpu-before.cpu)/float64(n), "cpu-µs/score")
			b.ReportMetric((after.all-before.all)/float64(n), "cmd-µs/score")
			inner := (after.all - before.all) - (after.scripts - before.scripts)
			b.ReportMetric(inner/float64(n), "inner-µs/score")
		})
	}
}
