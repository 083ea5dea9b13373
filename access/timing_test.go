package access

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// TestVerifyTimingHidesNames signs in as a known admin and as unknown names
// with wrong passwords, interleaved, and compares the median costs: a ratio,
// not a timed assertion. The accounts hash at a cost of 6, not production's
// 10: the dummy hash an unknown name is checked against is made at the
// accounts' own cost, so the two sides stay equal at any cost, and a check
// that skipped bcrypt for unknown names would still cost a small fraction of
// one that ran it (16 times cheaper, this test no longer spends 30 s of the
// race detector's time on bcrypt). Each is the CPU time the
// check takes (see cost), which a busy machine does not stretch on one side
// only, as it can the time on the clock.
func TestVerifyTimingHidesNames(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	rdb.Del(ctx, adminsKey)
	a := NewAccounts(rdb, bcrypt.MinCost+2)
	if err := a.Create(ctx, "timing-admin", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	const samples = 15
	var known, unknown []time.Duration
	measure := func(user string) time.Duration {
		var err error
		d := cost(func() { err = a.Verify(ctx, user, "wrong password!") })
		if !errors.Is(err, ErrBadCredentials) {
			t.Fatalf("verify %q: %v", user, err)
		}
		return d
	}
	measure("warm-up") // the dummy hash is made on first use
	for i := range samples {
		known = append(known, measure("timing-admin"))
		unknown = append(unknown, measure("nobody-"+string(rune('a'+i))))
	}
	mk, mu := median(known), median(unknown)
	ratio := float64(mu) / float64(mk)
	t.Logf("median known %v, unknown %v, ratio %.2f", mk, mu, ratio)
	if ratio < 0.5 || ratio > 2 {
		t.Fatalf("an unknown name costs %.2fx a known one (known %v, unknown %v): names can be told apart by timing", ratio, mk, mu)
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
