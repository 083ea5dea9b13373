package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// cpuSeconds is this process's CPU time so far, user + system.
func cpuSeconds() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}

// rss is this process's resident memory in bytes, from /proc.
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// redisCPU is the Redis server's CPU time so far, from INFO cpu.
func redisCPU(ctx context.Context, rdb *redis.Client) float64 {
	info, err := rdb.Info(ctx, "cpu").Result()
	if err != nil {
		return 0
	}
	total := 0.0
	for _, line := range strings.Split(info, "\n") {
		for _, f := range []string{"used_cpu_sys:", "used_cpu_user:"} {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), f); ok {
				x, _ := strconv.ParseFloat(v, 64)
				total += x
			}
		}
	}
	return total
}

// writeFloor is the CPU, in µs, that one write of n bytes to a loopback TCP
// socket costs the writing thread, its reader on another: the least a frame
// to a client can cost, the WebSocket and the hub aside. On loopback the
// writer's system call also runs the receiving side's TCP processing.
func writeFloor(n int) (float64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_, _ = io.Copy(io.Discard, c)
			c.Close()
		}
	}()
	w, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return 0, err
	}
	defer w.Close()
	const writes = 20_000
	msg := make([]byte, max(n, 1))
	type result struct {
		cpu time.Duration
		err error
	}
	done := make(chan result)
	go func() {
		runtime.LockOSThread() // so the thread's CPU is this goroutine's
		defer runtime.UnlockOSThread()
		start := threadCPU()
		for range writes {
			if _, err := w.Write(msg); err != nil {
				done <- result{err: err}
				return
			}
		}
		done <- result{cpu: threadCPU() - start}
	}()
	r := <-done
	return float64(r.cpu.Microseconds()) / writes, r.err
}

// threadCPU is the calling thread's CPU time, user + system.
func threadCPU() time.Duration {
	var u syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if syscall.Getrusage(rusageThread, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// memory is the process's in-use heap and goroutine stacks, and its
// goroutines.
type memory struct{ heap, stack, goroutines uint64 }

func (m memory) total() uint64 { return m.heap + m.stack }

// heap reads the process's memory after two collections: the first leaves
// what sync.Pools hold (net/http's buffers of the connections just made)
// to the second.
func heap() memory {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memory{heap: m.HeapInuse, stack: m.StackInuse, goroutines: uint64(runtime.NumGoroutine())}
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}

// fanOutFloor is the CPU, in µs, that one write of size bytes costs the
// writing thread when it writes once to each of n loopback TCP sockets in
// turn, a round every tick, each socket read by a goroutine of a child
// process, as the load generator reads its WebSockets: the least a frame
// to n clients can cost, the WebSocket and the hub aside. It is well above
// writeFloor's: every write wakes a reader, and each socket's state is
// cold by the time its turn comes again.
func fanOutFloor(self string, n, size int, tick time.Duration) (float64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	cmd := exec.Command(self, "-child", "-readers", ln.Addr().String(), "-clients", strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
		_ = cmd.Wait() // its readers end with the connections
	}()
	for range n {
		c, err := ln.Accept()
		if err != nil {
			return 0, err
		}
		conns = append(conns, c)
	}
	const rounds = 20
	msg := make([]byte, max(size, 1))
	type result struct {
		cpu time.Duration
		err error
	}
	done := make(chan result)
	go func() {
		runtime.LockOSThread() // so the thread's CPU is this goroutine's
		defer runtime.UnlockOSThread()
		var cpu time.Duration
		for range rounds {
			time.Sleep(tick)
			start := threadCPU()
			for _, c := range conns {
				if _, err := c.Write(msg); err != nil {
					done <- result{err: err}
					return
				}
			}
			cpu += threadCPU() - start
		}
		done <- result{cpu: cpu}
	}()
	r := <-done
	return float64(r.cpu.Microseconds()) / float64(rounds*max(n, 1)), r.err
}

// runReaders is the child of fanOutFloor: n connections to addr, each
// read to its end by a goroutine through a buffer as a client's.
func runReaders(addr string, n int) error {
	var wg sync.WaitGroup
	for range n {
		c, err := net.DialTimeout("tcp", addr, 30*time.Second)
		if err != nil {
			return err
		}
		wg.Go(func() {
			defer c.Close()
			_, _ = io.Copy(io.Discard, bufio.NewReaderSize(c, 4096))
		})
	}
	wg.Wait()
	return nil
}
