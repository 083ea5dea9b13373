package access

import (
	"runtime"
	"syscall"
	"time"
)

// cost is the CPU time f takes on the calling goroutine's thread (locked to
// it meanwhile): unlike the time on the clock, it does not grow while the
// thread waits for a core that other work holds.
func cost(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadCPU()
	f()
	return threadCPU() - before
}

func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
