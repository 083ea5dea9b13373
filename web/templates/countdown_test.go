package templates

import (
	"testing"
	"time"
)

// TestRemaining: a time left in its two largest units, rounded up to the
// second; countdown.js words it the same way.
func TestRemaining(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{51 * time.Hour, "2 d 3 h"},
		{48 * time.Hour, "2 d"},
		{48*time.Hour + 59*time.Minute, "2 d"},
		{72 * time.Minute, "1 h 12 min"},
		{time.Hour, "1 h"},
		{12*time.Minute + 5*time.Second, "12 min 5 s"},
		{12*time.Minute + 4*time.Second + time.Millisecond, "12 min 5 s"},
		{42 * time.Second, "42 s"},
		{time.Millisecond, "1 s"},
		{0, "1 s"},
	} {
		if got := Remaining(c.d); got != c.want {
			t.Errorf("Remaining(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
