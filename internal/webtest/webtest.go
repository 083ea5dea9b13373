// Package webtest serves Podium, built by app.New as the binary builds it,
// on a private Redis, for the tests of web and of its parts (web/pages,
// web/admin, web/api); and the helpers those tests share: requests with
// and without an API key, a browser with cookies and the console's CSRF
// token, and readable excerpts of pages.
//
// A test package runs its tests with webtest.Main from TestMain; each
// New empties that package's Redis, so the tests of a package run one at
// a time.
package webtest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/internal/redistest"
)

// Now is the fixtures' instant: Wednesday of ISO week 2027-W01, noon UTC.
var Now = time.Date(2027, 1, 6, 12, 0, 0, 0, time.UTC)

// Quiet is a log that drops everything.
var Quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

var srv *redistest.Server

// Main runs a package's tests with a private redis-server; call it from
// TestMain.
func Main(m *testing.M) { redistest.Main(m, &srv) }

// redisFor is the Redis fixtures use: the package's private server, or
// another while UseRedis says so.
var redisFor = func(t testing.TB) redis.UniversalClient { return srv.Client(t) }

// Redis is a new client of the Redis fixtures use, closed when the test
// ends.
func Redis(t testing.TB) redis.UniversalClient {
	t.Helper()
	return redisFor(t)
}

// UseRedis makes fixtures use the Redis of client (a Cluster, say) until
// the test ends.
func UseRedis(t testing.TB, client func(testing.TB) redis.UniversalClient) {
	before := redisFor
	redisFor = client
	t.Cleanup(func() { redisFor = before })
}

// flushAll empties the test's Redis, every primary of a Cluster.
func flushAll(rdb redis.UniversalClient) error {
	ctx := context.Background()
	if c, ok := rdb.(*redis.ClusterClient); ok {
		return c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return n.FlushDB(ctx).Err() })
	}
	return rdb.FlushDB(ctx).Err()
}

// silentRedis drops go-redis's own log lines.
type silentRedis struct{}

func (silentRedis) Printf(context.Context, string, ...any) {}

// SilenceRedis drops go-redis's own log lines, for tests where a dead
// server is the point.
func SilenceRedis() { redis.SetLogger(silentRedis{}) }
