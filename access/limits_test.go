package access

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// quickLimiter has the production policy at test speed: short delays, and a
// window long enough that nothing expires by itself during a test.
func quickLimiter(t *testing.T) *Limiter {
	t.Helper()
	rdb := srv.Client(t)
	rdb.FlushDB(context.Background())
	l := NewLimiter(rdb)
	l.LoginDelay, l.LoginMaxDelay = 20*time.Millisecond, 160*time.Millisecond
	return l
}

// attempt is what the sign-in handler does with a wrong password: ask, and
// count the failure only if the attempt was allowed.
func attempt(t *testing.T, l *Limiter, user, addr string) (wait time.Duration) {
	t.Helper()
	ctx := context.Background()
	wait, err := l.LoginLocked(ctx, user, addr)
	if err != nil {
		t.Fatal(err)
	}
	if wait == 0 {
		l.LoginFailed(ctx, user, addr)
	}
	return wait
}

// waitFree waits, with a deadline, until user may try from addr.
func waitFree(t *testing.T, l *Limiter, user, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		wait, err := l.LoginLocked(context.Background(), user, addr)
		if err != nil {
			t.Fatal(err)
		}
		if wait == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s from %s still waits %v", user, addr, wait)
		}
		time.Sleep(wait)
	}
}

// TestLoginLockIsPerAddress: five failures from one address lock that address
// out of the account, while the real admin signs in from elsewhere.
func TestLoginLockIsPerAddress(t *testing.T) {
	l := quickLimiter(t)
	ctx := context.Background()
	for i := range 5 {
		if wait := attempt(t, l, "alice", "203.0.113.9"); wait > 0 {
			t.Fatalf("attempt %d refused: %v", i+1, wait)
		}
	}
	wait, _ := l.LoginLocked(ctx, "alice", "203.0.113.9")
	if wait < 14*time.Minute {
		t.Fatalf("the guessing address is not locked after 5 failures: %v", wait)
	}
	if wait, _ := l.LoginLocked(ctx, "alice", "198.51.100.7"); wait > 0 {
		t.Fatalf("the real admin's address is locked out by someone else's failures: %v", wait)
	}
	if wait, _ := l.LoginLocked(ctx, "bob", "203.0.113.9"); wait > 0 {
		t.Fatalf("another account locked by alice's failures: %v", wait)
	}
	// An IPv6 client counts as its /64: hopping addresses inside it does not help.
	for i := range 5 {
		attempt(t, l, "carol", fmt.Sprintf("2001:db8:1:2::%x", i+1))
	}
	if wait, _ := l.LoginLocked(ctx, "carol", "2001:db8:1:2:ffff::1"); wait < 14*time.Minute {
		t.Fatalf("another address in the same /64 is not locked: %v", wait)
	}
	if wait, _ := l.LoginLocked(ctx, "carol", "2001:db8:1:3::1"); wait > 0 {
		t.Fatalf("another /64 is locked: %v", wait)
	}
}

// TestLoginLockHoldsForItsWindow: from the locked address even the right
// password is refused (the caller never gets to verify it) until the lock
// ends; then it signs in and its count starts afresh.
func TestLoginLockHoldsForItsWindow(t *testing.T) {
	l := quickLimiter(t)
	l.LoginWindow = 700 * time.Millisecond
	ctx := context.Background()
	for range 5 {
		attempt(t, l, "alice", "203.0.113.9")
	}
	start := time.Now()
	wait, _ := l.LoginLocked(ctx, "alice", "203.0.113.9")
	if wait <= 0 || wait > l.LoginWindow {
		t.Fatalf("locked for %v, want up to %v", wait, l.LoginWindow)
	}
	waitFree(t, l, "alice", "203.0.113.9")
	if waited := time.Since(start); waited < wait-50*time.Millisecond {
		t.Fatalf("the lock ended after %v, it said %v", waited, wait)
	}
	l.LoginSucceeded(ctx, "alice", "203.0.113.9")
	if wait := attempt(t, l, "alice", "203.0.113.9"); wait > 0 {
		t.Fatalf("refused after the lock ended and a success: %v", wait)
	}
}

// TestLoginAccountDelayGrows: failures from ever new addresses (each under
// the per-address lock) slow the account down more and more, up to the cap,
// and never lock it: once the delay passes, a fresh address may try.
func TestLoginAccountDelayGrows(t *testing.T) {
	l := quickLimiter(t)
	ctx := context.Background()
	var waits []time.Duration
	for i := range 16 {
		addr := fmt.Sprintf("10.0.%d.1", i)
		waitFree(t, l, "alice", addr)
		if wait := attempt(t, l, "alice", addr); wait > 0 {
			t.Fatalf("attempt %d refused after its wait: %v", i+1, wait)
		}
		wait, err := l.LoginLocked(ctx, "alice", fmt.Sprintf("10.1.%d.1", i)) // what the next stranger hears
		if err != nil {
			t.Fatal(err)
		}
		waits = append(waits, wait)
	}
	t.Logf("waits after each failure: %v", waits)
	for i, w := range waits[:l.LoginSlowAfter] {
		if w > 0 {
			t.Fatalf("failure %d already slows the account (%v); slowing starts after %d", i+1, w, l.LoginSlowAfter)
		}
	}
	slowed := waits[l.LoginSlowAfter:]
	if slowed[0] <= 0 || slowed[0] > l.LoginDelay {
		t.Fatalf("first delay %v, want up to %v", slowed[0], l.LoginDelay)
	}
	if last := slowed[len(slowed)-1]; last <= 2*l.LoginDelay || last > l.LoginMaxDelay {
		t.Fatalf("the delay did not grow to the cap: %v (cap %v)", last, l.LoginMaxDelay)
	}
	if wait := l.LoginFailed(ctx, "alice", "10.2.0.1"); wait <= 0 || wait > time.Second {
		t.Fatalf("the answer of a slowed account is held %v, want (0, 1s]", wait)
	}
	waitFree(t, l, "alice", "192.0.2.44")
	if wait, _ := l.LoginLocked(ctx, "alice", "192.0.2.44"); wait != 0 {
		t.Fatalf("a fresh address is refused after the delay: %v", wait)
	}
}

// TestLoginSprayFromOneAddress: one address failing on many accounts is
// locked out of all of them.
func TestLoginSprayFromOneAddress(t *testing.T) {
	l := quickLimiter(t)
	for i := range 4 * l.LoginLockAfter {
		attempt(t, l, fmt.Sprintf("user%d", i), "203.0.113.50")
	}
	if wait, _ := l.LoginLocked(context.Background(), "someone-else", "203.0.113.50"); wait < 14*time.Minute {
		t.Fatalf("a spraying address is not locked: %v", wait)
	}
}
