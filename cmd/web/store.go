package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"podium/board"
)

// openRedis connects to REDIS_URL, or starts the embedded store when there is
// none. The returned close function releases what was opened.
func openRedis(ctx context.Context, cfg Config, log *slog.Logger) (*redis.Client, []board.Option, func(), error) {
	if cfg.RedisURL == "" {
		return openEmbedded(log)
	}
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("REDIS_URL %s: %w", redact(cfg.RedisURL), err)
	}
	rdb := redis.NewClient(opt)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, nil, nil, fmt.Errorf("cannot reach Redis at %s (REDIS_URL %s): %w", opt.Addr, redact(cfg.RedisURL), err)
	}
	log.Info("using Redis", slog.String("addr", opt.Addr), slog.Int("db", opt.DB))
	return rdb, nil, func() { rdb.Close() }, nil
}

// openEmbedded runs an in-process Redis-compatible store (miniredis). It has
// no keyspace notifications, so the store publishes the same
// __keyspace@0__:<key> messages itself after each write it makes, and the
// live hub runs one code path in both modes.
//
// miniredis serves on a loopback TCP port, which every local user can reach:
// without a password anyone on the machine could HSET podium:admins. So it
// requires one, random and made at each start, known only to this process.
func openEmbedded(log *slog.Logger) (*redis.Client, []board.Option, func(), error) {
	m := miniredis.NewMiniRedis()
	pass := randomSecret(32)
	m.RequireAuth(pass)
	if err := m.Start(); err != nil {
		return nil, nil, nil, fmt.Errorf("start the embedded store: %w", err)
	}
	log.Warn("running on the embedded in-memory store: data is lost when the process exits; set REDIS_URL to keep it in Redis",
		slog.String("store", "miniredis"), slog.String("addr", m.Addr()))
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), Password: pass})
	publish := board.WithWriteHook(func(ctx context.Context, keys ...string) {
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
	return rdb, []board.Option{publish}, func() { close(stop); rdb.Close(); m.Close() }, nil
}
