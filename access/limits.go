package access

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limiter counts in Redis, so limits hold across instances.
type Limiter struct {
	rdb redis.UniversalClient
	now func() time.Time
	// Login: after LoginSlowAfter failures answers slow down; at
	// LoginLockAfter failures for a user (or 4x that for an address) logins
	// are refused for LoginWindow.
	LoginSlowAfter int
	LoginLockAfter int
	LoginWindow    time.Duration
}

// NewLimiter uses 2 failures to slow, 5 to lock for 15 minutes.
func NewLimiter(rdb redis.UniversalClient) *Limiter {
	return &Limiter{rdb: rdb, now: time.Now, LoginSlowAfter: 2, LoginLockAfter: 5, LoginWindow: 15 * time.Minute}
}

// LoginLocked says whether logins for user or from addr are refused now,
// and for how much longer.
func (l *Limiter) LoginLocked(ctx context.Context, user, addr string) (time.Duration, error) {
	var u, a *redis.StringCmd
	var ut, at *redis.DurationCmd
	_, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		u, ut = p.Get(ctx, failUserKey+user), p.PTTL(ctx, failUserKey+user)
		a, at = p.Get(ctx, failAddrKey+addr), p.PTTL(ctx, failAddrKey+addr)
		return nil
	})
	if err != nil && err != redis.Nil {
		return 0, fmt.Errorf("access: login limits: %w", err)
	}
	un, _ := strconv.Atoi(u.Val())
	an, _ := strconv.Atoi(a.Val())
	var wait time.Duration
	if un >= l.LoginLockAfter {
		wait = max(wait, ut.Val())
	}
	if an >= 4*l.LoginLockAfter {
		wait = max(wait, at.Val())
	}
	return wait, nil
}

// LoginFailed counts a failure and returns how long to delay the answer.
func (l *Limiter) LoginFailed(ctx context.Context, user, addr string) time.Duration {
	var n *redis.IntCmd
	_, _ = l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		n = p.Incr(ctx, failUserKey+user)
		p.PExpire(ctx, failUserKey+user, l.LoginWindow)
		p.Incr(ctx, failAddrKey+addr)
		p.PExpire(ctx, failAddrKey+addr, l.LoginWindow)
		return nil
	})
	if f := int(n.Val()); f > l.LoginSlowAfter {
		return time.Duration(min(f-l.LoginSlowAfter, 5)) * 300 * time.Millisecond
	}
	return 0
}

// LoginSucceeded clears the user's failures.
func (l *Limiter) LoginSucceeded(ctx context.Context, user string) {
	l.rdb.Del(ctx, failUserKey+user)
}

// Allow counts one request against limit per minute for a scope ("key:abc",
// "addr:1.2.3.4"); when over, it says how long until the window turns.
func (l *Limiter) Allow(ctx context.Context, scope string, limit int) (bool, time.Duration, error) {
	now := l.now()
	window := now.Unix() / 60
	key := rateLimitKey + scope + ":" + strconv.FormatInt(window, 10)
	var n *redis.IntCmd
	_, err := l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		n = p.Incr(ctx, key)
		p.Expire(ctx, key, 2*time.Minute)
		return nil
	})
	if err != nil {
		return false, 0, fmt.Errorf("access: rate limit: %w", err)
	}
	if int(n.Val()) > limit {
		return false, time.Unix((window+1)*60, 0).Sub(now), nil
	}
	return true, 0, nil
}
