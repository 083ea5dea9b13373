// Command liveload measures live updates under load, on loopback only, and
// stops by itself: a private redis-server, the real server and hub in this
// process, N WebSocket clients in a child process, and writes at a set rate.
// Presets are the rows of issue 14's table (2k, 5k, 10k, and around, where
// every client watches its own member's around-me window). It prints
// frames per client per second, the latency from a write to a client's
// receipt (p50/p99/p99.9), the server's RSS and heap per client, its CPU per
// frame written, view reads per tick, and the CPU the server, its Redis and
// the load generator each used (they share the machine's cores).
//
//	go run ./cmd/liveload -preset 5k -duration 20s
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/redistest"
	"podium/live"
	"podium/web"
)

func main() {
	child := flag.Bool("child", false, "run the clients (internal)")
	url := flag.String("url", "", "WebSocket URL (child)")
	preset := flag.String("preset", "2k", "a row of issue 14's table: 2k, 5k, 10k or around")
	clients := flag.Int("clients", 0, "WebSocket clients (default: the preset's)")
	rate := flag.Int("rate", 0, "writes per second (default: the preset's)")
	around := flag.Bool("around", false, "each client watches its own member's around-me window (child, or the around preset)")
	duration := flag.Duration("duration", 20*time.Second, "how long writes run")
	tick := flag.Duration("tick", 100*time.Millisecond, "hub tick")
	cpuProfile := flag.String("cpuprofile", "", "write the server's CPU profile of the write phase to this file")
	memProfile := flag.String("memprofile", "", "write the server's heap profile, taken once every client is connected, to this file")
	flag.Parse()
	profile, memProfileTo = *cpuProfile, *memProfile
	raiseFileLimit()
	p, ok := presets[*preset]
	if !ok {
		fmt.Fprintf(os.Stderr, "liveload: no preset %q: 2k, 5k, 10k or around\n", *preset)
		os.Exit(2)
	}
	if *clients > 0 {
		p.clients = *clients
	}
	if *rate > 0 {
		p.rate = *rate
	}
	p.around = p.around || *around
	var err error
	if *child {
		err = runClients(*url, p.clients, p.around, *duration)
	} else {
		err = runServer(p, *duration, *tick)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "liveload:", err)
		os.Exit(1)
	}
}

func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

// profile and memProfileTo are where the server's CPU and heap profiles
// go, if anywhere.
var profile, memProfileTo string

// load is one row of issue 14's table.
type load struct {
	clients, rate int
	around        bool // every client its own around-me window
}

var presets = map[string]load{
	"2k":     {clients: 2000, rate: 500},
	"5k":     {clients: 5000, rate: 10_000},
	"10k":    {clients: 10_000, rate: 500},
	"around": {clients: 2000, rate: 1000, around: true},
}

// report is what the child tells the parent.
type report struct {
	Connected  int     `json:"connected"`
	Frames     int64   `json:"frames"`
	Bytes      int64   `json:"bytes"`        // payload bytes of those frames
	Latencies  []int64 `json:"latencies_ms"` // one per client per probe seen
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"` // the load generator's own, user + system
}

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

func runServer(p load, duration, tick time.Duration) error {
	clients, rate := p.clients, p.rate
	srv, err := redistest.Start()
	if err != nil {
		return err
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, PoolSize: 32})
	defer rdb.Close()
	ctx := context.Background()
	store := board.NewStore(rdb)
	b, err := store.CreateBoard(ctx, board.Board{ID: "load", Title: "Load", TieBreak: board.ByMember})
	if err != nil {
		return err
	}
	key := board.ZSetKey(b.ID, board.Period{Kind: board.AllTime})
	members := 200
	if p.around {
		members = clients // one member per client
	}
	for i := range members {
		rdb.ZAdd(ctx, key, redis.Z{Member: fmt.Sprintf("player-%05d", i), Score: float64(rand.IntN(10_000))})
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	hub := live.New(rdb, store, live.Options{Tick: tick, PerAddr: clients + 10, Logger: quiet}) // every client comes from loopback
	hctx, stopHub := context.WithCancel(ctx)
	defer stopHub()
	go hub.Run(hctx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: web.New(web.Options{Store: store, Live: hub, Logger: quiet}), ConnContext: live.ConnContext} // as cmd/web sets it
	go hs.Serve(ln)
	defer hs.Close()

	base, baseRSS := heap(), rss()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "-child", "-url", "ws://"+ln.Addr().String()+"/live?board=load&period=all&limit=10",
		"-clients", strconv.Itoa(clients), "-around="+strconv.FormatBool(p.around), "-duration", (duration + 2*time.Second).String())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	// Wait for the clients, then measure the server's memory with them attached.
	deadline := time.Now().Add(60 * time.Second)
	for hub.Stats().Clients < int64(clients) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	connected := hub.Stats().Clients
	mem := heap()
	perClient := float64(mem.total()-base.total()) / float64(max(connected, 1))
	stackPerClient := float64(mem.stack-base.stack) / float64(max(connected, 1))
	goroutinesPerClient := float64(mem.goroutines-base.goroutines) / float64(max(connected, 1))
	rssPerClient := float64(rss()-baseRSS) / float64(max(connected, 1))
	if memProfileTo != "" {
		if err := writeHeapProfile(memProfileTo); err != nil {
			return err
		}
	}

	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	before := hub.Stats()
	cpu0, redis0 := cpuSeconds(), redisCPU(ctx, rdb)
	start := time.Now()
	writes := 0
	// Writes go out in a pipeline every 10 ms, so the rate holds whatever a
	// round trip costs; every tenth is the probe, whose score is its time.
	slot := 10 * time.Millisecond
	t := time.NewTicker(slot)
	for time.Since(start) < duration {
		<-t.C
		due := int(float64(rate)*time.Since(start).Seconds()) - writes
		pipe := rdb.Pipeline()
		for range due {
			switch {
			case p.around: // a member's score is the time of its last write
				pipe.ZAdd(ctx, key, redis.Z{Member: fmt.Sprintf("player-%05d", rand.IntN(members)), Score: float64(time.Now().UnixMilli())})
			case writes%10 == 0:
				pipe.ZAdd(ctx, key, redis.Z{Member: "probe", Score: float64(time.Now().UnixMilli())})
			default:
				pipe.ZIncrBy(ctx, key, float64(rand.IntN(50)+1), fmt.Sprintf("player-%05d", rand.IntN(members)))
			}
			writes++
		}
		if due > 0 {
			if _, err := pipe.Exec(ctx); err != nil {
				return fmt.Errorf("write: %w", err)
			}
		}
	}
	t.Stop()
	elapsed := time.Since(start)
	after := hub.Stats()
	frames := after.Frames - before.Frames
	serverCPU, redisUsed := cpuSeconds()-cpu0, redisCPU(ctx, rdb)-redis0
	ticks := elapsed.Seconds() / tick.Seconds()

	var rep report
	if err := json.NewDecoder(out).Decode(&rep); err != nil {
		return fmt.Errorf("read the clients' report: %w", err)
	}
	_ = cmd.Wait()
	size := int(rep.Bytes / max(rep.Frames, 1))
	floor, err := writeFloor(size)
	if err != nil {
		return fmt.Errorf("measure a bare write: %w", err)
	}
	slices.Sort(rep.Latencies)
	pct := func(p float64) string {
		if len(rep.Latencies) == 0 {
			return "n/a"
		}
		return strconv.FormatInt(rep.Latencies[int(p*float64(len(rep.Latencies)-1))], 10) + " ms"
	}
	fmt.Printf("%-8s %-7s %9s %10s %11s %9s %9s %9s %13s %13s %12s %10s\n", "clients", "windows", "writes/s", "frames/s", "frames/cl/s", "p50", "p99", "p99.9",
		"RSS/client", "heap/client", "CPU/frame", "reads/tick")
	windows := "shared"
	if p.around {
		windows = "own"
	}
	fmt.Printf("%-8d %-7s %9.0f %10.0f %11.1f %9s %9s %9s %9.1f KiB %9.1f KiB %9.2f µs %10.1f\n",
		connected, windows, float64(writes)/elapsed.Seconds(), float64(frames)/elapsed.Seconds(),
		float64(frames)/float64(max(connected, 1))/elapsed.Seconds(),
		pct(0.50), pct(0.99), pct(0.999), rssPerClient/1024, perClient/1024,
		serverCPU/float64(max(frames, 1))*1e6, float64(after.Reads-before.Reads)/ticks)
	fmt.Printf("(tick %v, %d views, %d latency samples, clients received %d frames; CPU over %.1f s: server %.2f s, its Redis %.2f s, the load generator %.2f s, on %d cores)\n",
		tick, after.Views, len(rep.Latencies), rep.Frames, elapsed.Seconds(), serverCPU, redisUsed, rep.CPUSeconds, runtime.NumCPU())
	fmt.Printf("(a frame's floor: one bare %d-byte write to a loopback TCP socket, read by another thread, costs the writing thread %.2f µs of CPU)\n", size, floor)
	fmt.Printf("(per client: %.1f KiB of the heap/client figure are goroutine stacks; %.2f goroutines)\n", stackPerClient/1024, goroutinesPerClient)
	return nil
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

// heap reads the process's memory after a collection.
func heap() memory {
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

// runClients connects n clients, reads every frame, and times each new probe
// value from its write to its receipt. Each client is a bare WebSocket
// reader (rawClient) so the load generator's own CPU stays small beside the
// server's: the two share the machine's cores.
func runClients(url string, n int, around bool, d time.Duration) error {
	var frames, received atomic.Int64
	var mu sync.Mutex
	var lat []int64
	var wg sync.WaitGroup
	connected := atomic.Int64{}
	stopAt := time.Now().Add(d + 15*time.Second)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%100 == 0 {
				time.Sleep(time.Duration(i/100) * 20 * time.Millisecond) // do not stampede the accept queue
			}
			probeName, u := "probe", url
			if around { // its own member, whose score is the time of its last write
				probeName = fmt.Sprintf("player-%05d", i)
				u = strings.Replace(url, "&limit=10", "&member="+probeName+"&radius=5", 1)
			}
			c, err := dialRaw(u, stopAt)
			if err != nil {
				fmt.Fprintln(os.Stderr, "dial:", err)
				return
			}
			defer c.Close()
			connected.Add(1)
			needle := []byte(`"m":"` + probeName + `"`)
			last := 0.0
			var mine []int64
			for {
				data, err := c.next()
				if err != nil {
					break
				}
				now := time.Now().UnixMilli()
				frames.Add(1)
				received.Add(int64(len(data)))
				if probe := valueAfter(data, needle); probe > last {
					if last > 0 {
						mine = append(mine, now-int64(probe))
					}
					last = probe
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return json.NewEncoder(os.Stdout).Encode(report{Connected: int(connected.Load()), Frames: frames.Load(), Bytes: received.Load(), Latencies: lat, CPUSeconds: cpuSeconds()})
}

// valueAfter finds a row by its member field and returns its "v" (the
// stored score), or 0: enough of the frame's JSON for the probe.
func valueAfter(data, member []byte) float64 {
	i := bytes.Index(data, member)
	if i < 0 {
		return 0
	}
	rest := data[i+len(member):]
	j := bytes.Index(rest, []byte(`"v":`))
	if j < 0 {
		return 0
	}
	rest = rest[j+4:]
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(string(rest[:end]), 64)
	return v
}

// rawClient is a minimal WebSocket client (RFC 6455) for reading frames:
// one buffered reader, one reused payload buffer, and answers to pings and
// to the close frame.
type rawClient struct {
	net.Conn
	r   *bufio.Reader
	buf []byte
}

func dialRaw(url string, until time.Time) (*rawClient, error) {
	rest, ok := strings.CutPrefix(url, "ws://")
	if !ok {
		return nil, fmt.Errorf("%s: only ws:// URLs", url)
	}
	host, path, _ := strings.Cut(rest, "/")
	conn, err := net.DialTimeout("tcp", host, 30*time.Second)
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(until)
	fmt.Fprintf(conn, "GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", path, host)
	c := &rawClient{Conn: conn, r: bufio.NewReaderSize(conn, 4096)}
	status, err := c.r.ReadString('\n')
	if err != nil || !strings.Contains(status, " 101 ") {
		conn.Close()
		return nil, fmt.Errorf("handshake: %q %v", strings.TrimSpace(status), err)
	}
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("handshake: %w", err)
		}
		if line == "\r\n" {
			return c, nil
		}
	}
}

// next returns the next text or binary message's payload, valid until the
// next call.
func (c *rawClient) next() ([]byte, error) {
	for {
		var h [8]byte
		if _, err := io.ReadFull(c.r, h[:2]); err != nil {
			return nil, err
		}
		op, n := h[0]&0x0f, uint64(h[1]&0x7f)
		switch n {
		case 126:
			if _, err := io.ReadFull(c.r, h[:2]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(h[:2]))
		case 127:
			if _, err := io.ReadFull(c.r, h[:8]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(h[:8])
		}
		if n > 1<<24 {
			return nil, fmt.Errorf("a frame of %d bytes", n)
		}
		if uint64(cap(c.buf)) < n {
			c.buf = make([]byte, n)
		}
		p := c.buf[:n]
		if _, err := io.ReadFull(c.r, p); err != nil {
			return nil, err
		}
		switch op {
		case 1, 2:
			return p, nil
		case 8: // close: answer it and stop
			_ = c.control(8, p)
			return nil, io.EOF
		case 9:
			if err := c.control(10, p); err != nil {
				return nil, err
			}
		}
	}
}

// control writes a masked control frame (the all-zero mask leaves the
// payload as it is).
func (c *rawClient) control(op byte, p []byte) error {
	f := append([]byte{0x80 | op, 0x80 | byte(len(p)), 0, 0, 0, 0}, p...)
	_, err := c.Write(f)
	return err
}
