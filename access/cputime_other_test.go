//go:build !linux

package access

import "time"

// cost is the time f takes: only Linux tells a thread's CPU time apart.
func cost(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
