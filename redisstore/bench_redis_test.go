package redisstore

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// What Redis spends per operation, next to what the operation's bare
// commands cost (`make bench-redis`): one Redis core is a board's ceiling,
// so µs of Redis per read or write, not the client's latency, say how far a
// board goes.

// redisCost is what Redis has spent so far: µs inside commands (INFO
// commandstats, every command, scripts included) and µs of its process's
// CPU (used_cpu_user + used_cpu_sys: the commands, and reading and writing
// their sockets).
type redisCost struct{ cmd, cpu float64 }

func costOf(b *testing.B, rdb redis.UniversalClient) redisCost {
	b.Helper()
	info, err := rdb.Info(context.Background(), "commandstats", "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var c redisCost
	for _, line := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(line, "cmdstat_") {
			for _, f := range strings.Split(line[strings.Index(line, ":")+1:], ",") {
				if v, ok := strings.CutPrefix(f, "usec="); ok {
					n, _ := strconv.ParseFloat(v, 64)
					c.cmd += n
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

// measureRedis starts counting; the function it returns reports Redis' µs
// per operation over n operations (the INFO calls themselves are left out
// of the first figure, and cost about 30 µs of the second, spread over n).
func measureRedis(b *testing.B, rdb redis.UniversalClient) func(n int) {
	before := costOf(b, rdb)
	return func(n int) {
		after := costOf(b, rdb)
		if n == 0 {
			return
		}
		b.ReportMetric((after.cmd-before.cmd)/float64(n), "redis-µs/op")
		b.ReportMetric((after.cpu-before.cpu)/float64(n), "redis-cpu-µs/op")
	}
}

// benchEntries are some of the bench board's all-time entries, as Redis
// holds them, for the bare commands' benchmarks.
func benchEntries(b *testing.B, s *Store, zset string) []string {
	b.Helper()
	es, err := s.rdb.ZRandMember(context.Background(), zset, 1000).Result()
	if err != nil || len(es) == 0 {
		b.Fatal("no entries", err)
	}
	return es
}

// BenchmarkBareTop50 is what a top-50 page needs of Redis at the least:
// ZREVRANGE of 50 with scores, then HMGET of their names.
func BenchmarkBareTop50(b *testing.B) {
	s, bd, all := benchSetup(b)
	ctx := context.Background()
	z := ZSetKey(bd.ID, all)
	done := measureRedis(b, s.rdb)
	n := 0
	for b.Loop() {
		n++
		r, err := s.rdb.ZRevRangeWithScores(ctx, z, 0, 49).Result()
		if err != nil || len(r) != 50 {
			b.Fatal(err)
		}
		ids := make([]string, len(r))
		for i, e := range r {
			ids[i] = e.Member.(string)
		}
		if err := s.rdb.HMGet(ctx, namesKey(bd.ID), ids...).Err(); err != nil {
			b.Fatal(err)
		}
	}
	done(n)
}

// BenchmarkBareRank is one member's rank at the least: ZREVRANK.
func BenchmarkBareRank(b *testing.B) {
	s, bd, all := benchSetup(b)
	ctx := context.Background()
	z := ZSetKey(bd.ID, all)
	es := benchEntries(b, s, z)
	rng := rand.New(rand.NewPCG(9, 10))
	done := measureRedis(b, s.rdb)
	n := 0
	for b.Loop() {
		n++
		if err := s.rdb.ZRevRank(ctx, z, es[rng.IntN(len(es))]).Err(); err != nil {
			b.Fatal(err)
		}
	}
	done(n)
}

// BenchmarkBareZIncrBy is Redis' cheapest write on the bench board's zset.
func BenchmarkBareZIncrBy(b *testing.B) {
	s, bd, all := benchSetup(b)
	ctx := context.Background()
	z := ZSetKey(bd.ID, all)
	es := benchEntries(b, s, z)
	rng := rand.New(rand.NewPCG(11, 12))
	done := measureRedis(b, s.rdb)
	n := 0
	for b.Loop() {
		n++
		if err := s.rdb.ZIncrBy(ctx, z, 0, es[rng.IntN(len(es))]).Err(); err != nil {
			b.Fatal(err)
		}
	}
	done(n)
}
