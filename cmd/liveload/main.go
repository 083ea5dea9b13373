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
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/app"
	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
)

func main() {
	child := flag.Bool("child", false, "run the clients (internal)")
	url := flag.String("url", "", "WebSocket URL (child)")
	readers := flag.String("readers", "", "connect the clients to this TCP address and read whatever comes (child, for the fan-out floor)")
	preset := flag.String("preset", "2k", "a row of issue 14's table: 2k, 5k, 10k or around")
	clients := flag.Int("clients", 0, "WebSocket clients (default: the preset's)")
	rate := flag.Int("rate", 0, "writes per second (default: the preset's)")
	around := flag.Bool("around", false, "each client watches its own member's around-me window (child, or the around preset)")
	duration := flag.Duration("duration", 20*time.Second, "how long writes run")
	tick := flag.Duration("tick", 100*time.Millisecond, "hub tick")
	cpuProfile := flag.String("cpuprofile", "", "write the server's CPU profile of the write phase to this file")
	memProfile := flag.String("memprofile", "", "write the server's heap profile, taken once every client is connected, to this file (every allocation recorded: slower)")
	flag.Parse()
	profile, memProfileTo = *cpuProfile, *memProfile
	if memProfileTo != "" {
		runtime.MemProfileRate = 1 // every allocation: what each client holds, exactly
	}
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
	switch {
	case *child && *readers != "":
		err = runReaders(*readers, p.clients)
	case *child:
		err = runClients(*url, p.clients, p.around, *duration)
	default:
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
	// The server is the app as cmd/web assembles it, on this Redis; every
	// client comes from loopback.
	cfg, err := app.ParseConfig(nil, func(k string) string {
		return map[string]string{"REDIS_URL": "redis://" + srv.Addr, "LIVE_TICK": tick.String(), "LIVE_ADDR_LIMIT": strconv.Itoa(clients + 10),
			"ARCHIVE_PATH": filepath.Join(os.TempDir(), fmt.Sprintf("podium-liveload-%d.db", os.Getpid())), "DRAIN_PERIOD": "0s"}[k]
	}, io.Discard)
	if err != nil {
		return err
	}
	defer os.Remove(cfg.ArchivePath)
	a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), app.WithRedis(rdb))
	if err != nil {
		return err
	}
	defer a.Close()
	store, hub := a.Store, a.Hub
	b, err := store.CreateBoard(ctx, board.Board{ID: "load", Title: "Load", TieBreak: board.ByMember})
	if err != nil {
		return err
	}
	key := redisstore.ZSetKey(b.ID, board.Period{Kind: board.AllTime})
	members := 200
	if p.around {
		members = clients // one member per client
	}
	for i := range members {
		rdb.ZAdd(ctx, key, redis.Z{Member: fmt.Sprintf("player-%05d", i), Score: float64(rand.IntN(10_000))})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	runCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- a.Run(runCtx, ln, io.Discard) }()
	defer func() { stop(); <-served }()

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
	// RSS holds the heap's high-water mark of the connection storm until
	// the runtime returns it to the OS: the same once it has.
	debug.FreeOSMemory()
	settledPerClient := float64(rss()-baseRSS) / float64(max(connected, 1))
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
	fanFloor, err := fanOutFloor(self, int(connected), size, tick)
	if err != nil {
		return fmt.Errorf("measure a fan-out of bare writes: %w", err)
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
	fmt.Printf("(the fan-out's floor: one bare %d-byte write to each of %d loopback TCP sockets in turn, every %v, each read by a goroutine of another process, costs the writing thread %.2f µs of CPU per write)\n", size, connected, tick, fanFloor)
	fmt.Printf("(per client: %.1f KiB of the heap/client figure are goroutine stacks; %.2f goroutines; RSS/client %.1f KiB once the runtime has returned its free memory to the OS)\n", stackPerClient/1024, goroutinesPerClient, settledPerClient/1024)
	return nil
}
