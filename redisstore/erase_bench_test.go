package redisstore

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// BenchmarkRedactStream rewrites an audit stream of 50,000 entries (a
// board's log of 50,000 single scores, one in a hundred about the erased
// member) as an erasure does: it reports the time per entry, and per script
// call, which is as long as Redis is held at a time.
func BenchmarkRedactStream(b *testing.B) {
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	ctx := context.Background()
	key := tagOf("bench-redact") + ":audit"
	rdb.Del(ctx, key)
	defer rdb.Del(ctx, key)
	const entries = 50_000
	pipe := rdb.Pipeline()
	for i := range entries {
		member := "player-" + strconv.Itoa(i%500)
		if i%100 == 0 {
			member = "alice"
		}
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{"t", "1", "actor", "key:game", "action", "scores", "board", "bench-redact",
			"items", member + "\tincr\t5\t10\t3\t15\t2\t\t\tall\t10\t3\t15\t2", "reason", "", "n", "1"}})
		if i%1000 == 999 {
			if _, err := pipe.Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	s := NewStore(rdb)
	r := Redaction{Board: "bench-redact", Member: "alice", Pseudonym: "erased-0123456789abcdef", Names: []string{"Alice"}, Cut: "99999999999999-0"}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := s.RedactStream(ctx, key, r); err != nil {
			b.Fatal(err)
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(per.Microseconds())/entries, "µs/entry")
	b.ReportMetric(float64(per.Microseconds())/float64((entries+redactChunk-1)/redactChunk), "µs/call")
}
