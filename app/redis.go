package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"podium/redisstore"
)

// openRedis connects to the Redis the configuration names, or starts the
// embedded store when it names none. The returned close function releases
// what was opened.
func openRedis(ctx context.Context, cfg Config, log *slog.Logger) (redis.UniversalClient, []redisstore.Option, func(), error) {
	if cfg.Embedded() {
		return openEmbedded(log)
	}
	redis.SetLogger(redisLog{log})
	rdb, where, err := DialRedis(ctx, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	log.Info("using Redis", slog.String("at", where))
	return rdb, nil, func() { rdb.Close() }, nil
}

// DialRedis makes the client of a single Redis (REDIS_URL), a Cluster or a
// Sentinel-watched primary, and checks that it answers. where describes it
// for logs and errors, without secrets.
func DialRedis(ctx context.Context, cfg Config) (rdb redis.UniversalClient, where string, err error) {
	t := cfg.Redis
	var tlsConf *tls.Config
	if t.TLS {
		tlsConf = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	switch {
	case cfg.RedisURL != "":
		opt, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return nil, "", fmt.Errorf("REDIS_URL %s: %w", Redact(cfg.RedisURL), err)
		}
		rdb, where = redis.NewClient(opt), fmt.Sprintf("Redis at %s (REDIS_URL %s)", opt.Addr, Redact(cfg.RedisURL))
	case len(t.ClusterAddrs) > 0:
		rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: t.ClusterAddrs, Username: t.Username, Password: t.Password, TLSConfig: tlsConf})
		where = "the Redis Cluster of " + strings.Join(t.ClusterAddrs, ",")
	case len(t.SentinelAddrs) > 0:
		rdb = redis.NewFailoverClient(&redis.FailoverOptions{
			MasterName: t.MasterName, SentinelAddrs: t.SentinelAddrs, SentinelPassword: t.SentinelPassword,
			Username: t.Username, Password: t.Password, TLSConfig: tlsConf,
		})
		where = fmt.Sprintf("primary %q of the sentinels %s", t.MasterName, strings.Join(t.SentinelAddrs, ","))
	default:
		return nil, "", errors.New("no Redis configured: set REDIS_URL, REDIS_CLUSTER_ADDRS or REDIS_SENTINEL_ADDRS")
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, "", fmt.Errorf("cannot reach %s: %w", where, err)
	}
	return rdb, where, nil
}

// openEmbedded runs an in-process Redis-compatible store (miniredis). It has
// no keyspace notifications, so the store publishes the same
// __keyspace@0__:<key> messages itself after each write it makes, and the
// live hub runs one code path in both modes.
//
// miniredis serves on a loopback TCP port, which every local user can reach:
// without a password anyone on the machine could HSET podium:admins. So it
// requires one, random and made at each start, known only to this process.
func openEmbedded(log *slog.Logger) (redis.UniversalClient, []redisstore.Option, func(), error) {
	m := miniredis.NewMiniRedis()
	pass := randomSecret(32)
	m.RequireAuth(pass)
	if err := m.Start(); err != nil {
		return nil, nil, nil, fmt.Errorf("start the embedded store: %w", err)
	}
	log.Warn("running on the embedded in-memory store: data is lost when the process exits; set REDIS_URL to keep it in Redis",
		slog.String("store", "miniredis"), slog.String("addr", m.Addr()))
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), Password: pass})
	publish := redisstore.WithWriteHook(func(ctx context.Context, keys ...string) {
		pipe := rdb.Pipeline()
		for _, k := range keys {
			pipe.Publish(ctx, "__keyspace@0__:"+k, "zadd")
		}
		if _, err := pipe.Exec(ctx); err != nil {
			log.Warn("publish keyspace notification", slog.Any("error", err))
		}
	})
	// miniredis runs time-to-live down only when told: every second, so
	// sessions, idempotency keys, rate windows and expired periods go as
	// they would in Redis.
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		last := time.Now()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				m.FastForward(now.Sub(last))
				last = now
			}
		}
	}()
	return rdb, []redisstore.Option{publish}, func() { close(stop); rdb.Close(); m.Close() }, nil
}

// redisDB is the database whose keyspace the live hub watches: REDIS_URL's
// (or the Sentinel primary's) number, 0 on a Cluster, which has only that.
func redisDB(rdb redis.UniversalClient) int {
	if c, ok := rdb.(*redis.Client); ok {
		return c.Options().DB
	}
	return 0
}

// redisLog takes go-redis's own messages into the app's log: dial failures
// while a node is down at debug level (the app says what they cost in its
// own words: a lost subscription, a failed request), a Sentinel naming a new
// primary at info.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	level := slog.LevelDebug
	if strings.Contains(msg, "new master") {
		level = slog.LevelInfo
	}
	l.log.Log(ctx, level, "redis: "+msg)
}
