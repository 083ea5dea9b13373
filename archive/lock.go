package archive

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
)

// A period's archiving lock: one pass at a time, renewed while it runs,
// lost by a pass that dies or stalls.

// release deletes a lock only while it is still ours.
var release = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

// renew extends a lock only while it is still ours.
var renew = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`)

// DefaultLockTTL bounds how long a pass that died mid-copy (its process or
// Redis killed) keeps others from its period: a live pass renews its lock
// every quarter of it, and gives up the copy should a whole TTL pass
// without a renewal.
const DefaultLockTTL = 20 * time.Second

func (a *Archiver) lockTTL() time.Duration {
	if a.LockTTL > 0 {
		return a.LockTTL
	}
	return DefaultLockTTL
}

// errLockLost ends a pass whose lock expired or went to another replica:
// it could record nothing.
var errLockLost = errors.New("archive: the period's lock was lost (not renewed in time, or taken over)")

// lease is a period's archiving lock while a pass holds it: its value is
// the pass's token, and ctx ends when the pass is to stop (the lock lost,
// or release called).
type lease struct {
	token   string
	ctx     context.Context
	release func()
}

// lock takes a period's archiving lock and renews it until release; nil
// when another pass holds it.
func (a *Archiver) lock(ctx context.Context, b *board.Board, p board.Period) (*lease, error) {
	token := make([]byte, 12)
	_, _ = rand.Read(token)
	tok := hex.EncodeToString(token)
	key := redisstore.ArchiveLock(b.ID, p)
	ttl := a.lockTTL()
	got, err := a.rdb().SetNX(ctx, key, tok, ttl).Result()
	if err != nil {
		return nil, fmt.Errorf("archive: lock %s of %q: %w", p, b.ID, err)
	}
	if !got {
		return nil, nil
	}
	held, stop := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(ttl / 4)
		defer t.Stop()
		renewed := time.Now()
		for {
			select {
			case <-held.Done():
				return
			case <-t.C:
			}
			n, err := renew.Run(held, a.rdb(), []string{key}, tok, ttl.Milliseconds()).Int()
			switch {
			case err == nil && n == 1:
				renewed = time.Now()
			case err == nil || time.Since(renewed) >= ttl:
				stop(errLockLost)
				return
			}
		}
	}()
	return &lease{token: tok, ctx: held, release: func() {
		stop(context.Canceled)
		<-done
		release.Run(context.WithoutCancel(ctx), a.rdb(), []string{key}, tok)
	}}, nil
}
