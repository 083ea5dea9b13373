package access

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"
)

// Limiter counts sign-in failures in Redis, so they hold across instances,
// and request rates in process (see Allow).
//
// Sign-in policy. A stranger must not be able to lock a real admin out, and
// guessing a password must get slower and slower however many addresses the
// guesses come from:
//
//   - LoginLockAfter failures for one account from one client address lock
//     that address out of that account for LoginWindow. Other addresses are
//     not affected.
//   - Failures on an account from any address add up (forgotten LoginWindow
//     after the last one). Past LoginSlowAfter of them, each failure makes the
//     next attempt on that account, from anywhere, wait a delay that doubles
//     from LoginDelay up to LoginMaxDelay. This is a delay, never a lock: once
//     it has passed, the right password from an address that is not locked
//     signs in.
//   - 4 x LoginLockAfter failures from one address, on any accounts, lock that
//     address out of every account for LoginWindow (password spraying).
//
// User names and addresses reach Redis only as fixed-size hashes, so a
// megabyte of user name costs the same few bytes as "alice". An IPv6 client
// counts as its /64, which one machine usually holds whole.
type Limiter struct {
	rdb     redis.UniversalClient
	now     func() time.Time
	buckets buckets

	LoginLockAfter int
	LoginWindow    time.Duration
	LoginSlowAfter int
	LoginDelay     time.Duration
	LoginMaxDelay  time.Duration
}

// NewLimiter locks an address out of an account after 5 failures for 15
// minutes, and slows an account down after 10 failures from anywhere, by 1 s
// doubling to 30 s.
func NewLimiter(rdb redis.UniversalClient) *Limiter {
	return &Limiter{
		rdb: rdb, now: time.Now,
		LoginLockAfter: 5, LoginWindow: 15 * time.Minute,
		LoginSlowAfter: 10, LoginDelay: time.Second, LoginMaxDelay: 30 * time.Second,
	}
}

// maxAnswerPause bounds how long LoginFailed asks the handler to hold a
// failed answer; the rest of the wait is reported by LoginLocked.
const maxAnswerPause = time.Second

// loginKeys are the Redis keys of one sign-in attempt. The account's keys
// share the hash tag of the user's hash, so the failure script touches one
// Redis Cluster slot; the address-wide counter lives on its own.
type loginKeys struct {
	pair, count, wait, addr string
}

func (l *Limiter) keys(user, addr string) loginKeys {
	u, a := shortHash(user), shortHash(clientNet(addr))
	acct := loginKey + "{" + u + "}:"
	return loginKeys{pair: acct + "addr:" + a, count: acct + "fails", wait: acct + "wait", addr: loginKey + "addr:" + a}
}

// clientNet is the unit an address is counted as: the IP itself, or its /64
// for IPv6. Anything that is not an IP is counted as given.
func clientNet(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.WithZone("").Prefix(64)
	return p.String()
}

// LoginLocked says how long before user may try to sign in from addr: the
// rest of that address's lock, or of the account's delay, whichever is
// longer; 0 means now.
func (l *Limiter) LoginLocked(ctx context.Context, user, addr string) (time.Duration, error) {
	return l.loginLocked(ctx, user, addr, false)
}

// LoginLockedKnown is LoginLocked for a browser that has signed in to this
// account before (a device cookie the server signed): the account-wide delay
// does not apply to it, so a stranger who keeps that delay armed cannot keep
// the owner out. The per-address lock still does.
func (l *Limiter) LoginLockedKnown(ctx context.Context, user, addr string) (time.Duration, error) {
	return l.loginLocked(ctx, user, addr, true)
}

func (l *Limiter) loginLocked(ctx context.Context, user, addr string, knownDevice bool) (time.Duration, error) {
	k := l.keys(user, addr)
	var pair, spray *redis.StringCmd
	var pairTTL, sprayTTL, wait *redis.DurationCmd
	_, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		pair, pairTTL = p.Get(ctx, k.pair), p.PTTL(ctx, k.pair)
		spray, sprayTTL = p.Get(ctx, k.addr), p.PTTL(ctx, k.addr)
		wait = p.PTTL(ctx, k.wait)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("access: login limits: %w", err)
	}
	var out time.Duration
	if n, _ := strconv.Atoi(pair.Val()); n >= l.LoginLockAfter {
		out = max(out, pairTTL.Val())
	}
	if n, _ := strconv.Atoi(spray.Val()); n >= 4*l.LoginLockAfter {
		out = max(out, sprayTTL.Val())
	}
	if knownDevice {
		return max(out, 0), nil
	}
	return max(out, wait.Val(), 0), nil // PTTL is negative for a missing key
}

//go:embed login_failed.lua
var loginFailedLua string

var loginFailedScript = redis.NewScript(loginFailedLua)

// LoginFailed counts a failure of user from addr and returns how long to hold
// the answer: the account's new delay, up to a second, so a client that
// ignores Retry-After gains nothing by asking at once. Counting is best
// effort: an error here leaves the attempt uncounted rather than failing a
// request that has already been answered.
func (l *Limiter) LoginFailed(ctx context.Context, user, addr string) time.Duration {
	k := l.keys(user, addr)
	window := l.LoginWindow.Milliseconds()
	res, err := loginFailedScript.Run(ctx, l.rdb, []string{k.pair, k.count, k.wait},
		window, l.LoginSlowAfter, l.LoginDelay.Milliseconds(), l.LoginMaxDelay.Milliseconds()).Int64Slice()
	_, _ = l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, k.addr)
		p.PExpire(ctx, k.addr, l.LoginWindow)
		return nil
	})
	if err != nil || len(res) < 3 {
		return 0
	}
	return min(time.Duration(res[2])*time.Millisecond, maxAnswerPause)
}

// LoginStart admits one sign-in attempt at a time per account and client
// address: between the check of the limits and the count of a failure lies a
// password hash, and requests sent in parallel would otherwise all pass the
// check. Take it before checking the limits, and call release when the
// attempt is over (it also lapses after a few seconds). ok is false while
// another attempt is under way.
func (l *Limiter) LoginStart(ctx context.Context, user, addr string) (release func(), ok bool, err error) {
	key, token := l.keys(user, addr).pair+":busy", randomToken(12)
	ok, err = l.rdb.SetNX(ctx, key, token, 5*time.Second).Result()
	if err != nil {
		return func() {}, false, fmt.Errorf("access: login limits: %w", err)
	}
	if !ok {
		return func() {}, false, nil
	}
	return func() {
		// Only our own: an attempt slower than the lapse must not end the next one's.
		releaseScript.Run(context.WithoutCancel(ctx), l.rdb, []string{key}, token)
	}, true, nil
}

var releaseScript = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

// LoginSucceeded clears the failures of user from addr. The account's count
// is left to expire: a guesser who sees the owner sign in gets no fresh start.
func (l *Limiter) LoginSucceeded(ctx context.Context, user, addr string) {
	l.rdb.Del(ctx, l.keys(user, addr).pair)
}

// Allow spends one request of scope's budget of limit a minute, and says how
// long to wait when there is none left. The budget is a GCRA (token bucket:
// limit a minute, bursts up to limit) kept in this process, so a request pays
// no Redis round trip for it; with N replicas behind a load balancer a client
// can reach N times the limit. Sign-in limits, which must hold across
// replicas, stay in Redis.
func (l *Limiter) Allow(_ context.Context, scope string, limit int) (bool, time.Duration, error) {
	if limit < 1 {
		return false, time.Minute, nil
	}
	now := l.now()
	b := l.buckets.get(scope, limit, now)
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); !r.OK() || d > 0 {
		r.CancelAt(now)
		return false, d, nil
	}
	return true, 0, nil
}

// buckets holds one token bucket per scope and limit, bounded: buckets that
// are full again carry no state and are dropped when there are many.
type buckets struct {
	mu sync.Mutex
	m  map[string]*rate.Limiter
}

const maxBuckets = 50_000

func (bs *buckets) get(scope string, limit int, now time.Time) *rate.Limiter {
	key := strconv.Itoa(limit) + " " + scope
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if b, ok := bs.m[key]; ok {
		return b
	}
	if bs.m == nil {
		bs.m = map[string]*rate.Limiter{}
	}
	if len(bs.m) >= maxBuckets {
		for k, b := range bs.m {
			if b.TokensAt(now) >= float64(b.Burst()) {
				delete(bs.m, k)
			}
		}
		if len(bs.m) >= maxBuckets { // every one of them busy: start over rather than grow
			clear(bs.m)
		}
	}
	b := rate.NewLimiter(rate.Every(time.Minute/time.Duration(limit)), limit)
	bs.m[key] = b
	return b
}
