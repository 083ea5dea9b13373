package access

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// TestHugeSignInStoresLittle posts what the sign-in handler would get from a
// form with a 5 MB user name (and a 5 MB password, and a 5 MB address from a
// misbehaving proxy): a failed attempt must leave only small keys behind, and
// be refused without bcrypt work.
func TestHugeSignInStoresLittle(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	rdb.FlushDB(ctx)
	a := NewAccounts(rdb, bcrypt.DefaultCost)
	if err := a.Create(ctx, "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	l := NewLimiter(rdb)
	huge := strings.Repeat("x", 5<<20)
	cases := []struct{ name, user, pass, addr string }{
		{"huge name", huge, "wrong password", "203.0.113.9"},
		{"huge password", "alice", huge, "203.0.113.9"},
		{"huge address", "alice", "wrong password", huge},
	}
	// What a normal wrong password costs, to compare with.
	start := time.Now()
	if err := a.Verify(ctx, "alice", "wrong password"); !errors.Is(err, ErrBadCredentials) {
		t.Fatal(err)
	}
	normal := time.Since(start)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for range 6 { // past the lock, so every kind of key is written
				if _, err := l.LoginLocked(ctx, tc.user, tc.addr); err != nil {
					t.Fatal(err)
				}
				if tc.name != "huge address" { // the address never reaches Verify
					start := time.Now()
					if err := a.Verify(ctx, tc.user, tc.pass); !errors.Is(err, ErrBadCredentials) {
						t.Fatalf("verify: %v", err)
					}
					if took := time.Since(start); took > normal/2 {
						t.Errorf("verify took %v, a normal wrong password %v: the huge input was hashed or sent to Redis", took, normal)
					}
				}
				l.LoginFailed(ctx, tc.user, tc.addr)
			}
		})
	}
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) < 4 {
		t.Fatalf("failures were not counted: keys %v", keys)
	}
	for _, k := range keys {
		size, err := rdb.MemoryUsage(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(k) > 100 || size > 500 {
			t.Errorf("key %.100q is %d bytes long and uses %d bytes", k, len(k), size)
		}
	}
}

func TestBounds(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	a := NewAccounts(rdb, bcrypt.MinCost)
	long := strings.Repeat("p", MaxPassword+1)
	err := a.Create(ctx, "dora", long)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "at most 72 bytes") {
		t.Fatalf("a 73-byte password: %v", err)
	}
	if err := a.Create(ctx, "dora", long[:MaxPassword]); err != nil {
		t.Fatalf("a 72-byte password: %v", err)
	}
	if err := a.Verify(ctx, "dora", long[:MaxPassword]); err != nil {
		t.Fatal(err)
	}
	// bcrypt reads 72 bytes: a longer password sharing them must not work.
	if err := a.Verify(ctx, "dora", long); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("a 73-byte password with the right first 72: %v", err)
	}
	for _, tc := range []struct{ in, want string }{
		{"alice", "alice"},
		{strings.Repeat("é", 40), strings.Repeat("é", 32) + "... (80 bytes)"},
		{strings.Repeat("a", 63) + "é", strings.Repeat("a", 63) + "... (65 bytes)"},
		{strings.Repeat("\xff", 70), "\ufffd... (70 bytes)"},
		{strings.Repeat("a", 62) + "\u20ac", strings.Repeat("a", 62) + "... (65 bytes)"},
	} {
		if got := LogSafe(tc.in); got != tc.want {
			t.Errorf("LogSafe(%.20q...) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
