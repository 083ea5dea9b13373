package access

import (
	"context"
	"testing"
	"time"
)

func TestSigner(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	a, b := NewSigner(rdb), NewSigner(rdb) // two replicas share the key
	tok, err := a.Sign(ctx, "flash", "Board created.", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := b.Verify(ctx, "flash", tok); !ok || v != "Board created." {
		t.Fatalf("another replica reads %q %v", v, ok)
	}
	for name, bad := range map[string]string{
		"other purpose": "", "tampered": tok[:len(tok)-2] + "xx", "unsigned": "Qm9hcmQ.9999999999.", "empty": "",
	} {
		purpose := "flash"
		if name == "other purpose" {
			purpose, bad = "device", tok
		}
		if v, ok := b.Verify(ctx, purpose, bad); ok {
			t.Errorf("%s accepted: %q", name, v)
		}
	}
	b.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	if _, ok := b.Verify(ctx, "flash", tok); ok {
		t.Error("an expired token accepted")
	}
}

// TestLoginStartAdmitsOneAtATime: parallel attempts on one account from one
// address cannot all pass the limits' check before any failure is counted.
func TestLoginStartAdmitsOneAtATime(t *testing.T) {
	l := NewLimiter(srv.Client(t))
	ctx := context.Background()
	release, ok, err := l.LoginStart(ctx, "alice", "203.0.113.5")
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, ok, _ := l.LoginStart(ctx, "alice", "203.0.113.5"); ok {
		t.Fatal("a second attempt in parallel admitted")
	}
	if _, ok, _ := l.LoginStart(ctx, "alice", "198.51.100.5"); !ok {
		t.Fatal("another address waited for this one")
	}
	release()
	release2, ok, _ := l.LoginStart(ctx, "alice", "203.0.113.5")
	if !ok {
		t.Fatal("not admitted after the first attempt ended")
	}
	release() // a late release of the first attempt must not end the second
	if _, ok, _ := l.LoginStart(ctx, "alice", "203.0.113.5"); ok {
		t.Fatal("the first attempt's release ended the second")
	}
	release2()
}

// TestKnownDeviceSkipsTheAccountDelay: a stranger keeping the account-wide
// delay armed does not keep out a browser that signed in before.
func TestKnownDeviceSkipsTheAccountDelay(t *testing.T) {
	l := NewLimiter(srv.Client(t))
	ctx := context.Background()
	for i := range l.LoginSlowAfter + 1 {
		l.LoginFailed(ctx, "dora", "10.9."+string(rune('0'+i%10))+".1")
	}
	if wait, _ := l.LoginLocked(ctx, "dora", "192.0.2.80"); wait <= 0 {
		t.Fatal("no account-wide delay for strangers")
	}
	if wait, _ := l.LoginLockedKnown(ctx, "dora", "192.0.2.80"); wait != 0 {
		t.Fatalf("a known browser waits %v", wait)
	}
	for range l.LoginLockAfter {
		l.LoginFailed(ctx, "dora", "192.0.2.81")
	}
	if wait, _ := l.LoginLockedKnown(ctx, "dora", "192.0.2.81"); wait <= 0 {
		t.Fatal("a known browser passed its own address's lock")
	}
}
