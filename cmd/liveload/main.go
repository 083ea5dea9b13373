// Command liveload measures live updates under load, on loopback only, and
// stops by itself: a private redis-server, the real server and hub in this
// process, N WebSocket clients of one board in a child process, and writes at
// a set rate. It prints clients, writes/s, frames/s, the latency from a write
// to a client's receipt (p50/p99), and the server's memory per client.
//
//	go run ./cmd/liveload -clients 2000 -rate 500 -duration 20s
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
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/redistest"
	"podium/live"
	"podium/rows"
	"podium/web"
)

func main() {
	child := flag.Bool("child", false, "run the clients (internal)")
	url := flag.String("url", "", "WebSocket URL (child)")
	clients := flag.Int("clients", 2000, "WebSocket clients watching one board")
	rate := flag.Int("rate", 500, "writes per second")
	duration := flag.Duration("duration", 20*time.Second, "how long writes run")
	tick := flag.Duration("tick", 100*time.Millisecond, "hub tick")
	flag.Parse()
	raiseFileLimit()
	var err error
	if *child {
		err = runClients(*url, *clients, *duration)
	} else {
		err = runServer(*clients, *rate, *duration, *tick)
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

// report is what the child tells the parent.
type report struct {
	Connected int     `json:"connected"`
	Frames    int64   `json:"frames"`
	Latencies []int64 `json:"latencies_ms"` // one per client per probe seen
	Seconds   float64 `json:"seconds"`
}

func runServer(clients, rate int, duration, tick time.Duration) error {
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
	for i := range 200 {
		rdb.ZAdd(ctx, key, redis.Z{Member: fmt.Sprintf("player-%03d", i), Score: float64(rand.IntN(10_000))})
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
	hs := &http.Server{Handler: web.New(web.Options{Store: store, Live: hub, Logger: quiet})}
	go hs.Serve(ln)
	defer hs.Close()

	base := heap()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "-child", "-url", "ws://"+ln.Addr().String()+"/live?board=load&period=all&limit=10",
		"-clients", strconv.Itoa(clients), "-duration", (duration + 2*time.Second).String())
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
	perClient := float64(heap()-base) / float64(max(connected, 1))

	framesBefore := hub.Stats().Frames
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
			if writes%10 == 0 {
				pipe.ZAdd(ctx, key, redis.Z{Member: "probe", Score: float64(time.Now().UnixMilli())})
			} else {
				pipe.ZIncrBy(ctx, key, float64(rand.IntN(50)+1), fmt.Sprintf("player-%03d", rand.IntN(200)))
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
	frames := hub.Stats().Frames - framesBefore

	var rep report
	if err := json.NewDecoder(out).Decode(&rep); err != nil {
		return fmt.Errorf("read the clients' report: %w", err)
	}
	_ = cmd.Wait()
	slices.Sort(rep.Latencies)
	pct := func(p float64) string {
		if len(rep.Latencies) == 0 {
			return "n/a"
		}
		return strconv.FormatInt(rep.Latencies[int(p*float64(len(rep.Latencies)-1))], 10) + " ms"
	}
	fmt.Printf("%-8s %10s %10s %12s %12s %12s %16s\n", "clients", "writes/s", "frames/s", "frames/view", "p50", "p99", "server mem/client")
	fmt.Printf("%-8d %10.0f %10.0f %12.1f %12s %12s %13.1f KiB\n",
		connected, float64(writes)/elapsed.Seconds(), float64(frames)/elapsed.Seconds(),
		float64(frames)/float64(max(connected, 1))/elapsed.Seconds(),
		pct(0.50), pct(0.99), perClient/1024)
	fmt.Printf("(tick %v, %d latency samples, clients received %d frames)\n", tick, len(rep.Latencies), rep.Frames)
	return nil
}

// heap is the process's in-use heap and stacks after a collection.
func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

// runClients connects n clients, reads every frame, and times each new probe
// value from its write to its receipt.
func runClients(url string, n int, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
	defer cancel()
	var frames atomic.Int64
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
			c, _, err := websocket.Dial(ctx, url, nil)
			if err != nil {
				fmt.Fprintln(os.Stderr, "dial:", err)
				return
			}
			defer c.CloseNow()
			c.SetReadLimit(1 << 20)
			connected.Add(1)
			last := 0.0
			rctx, rcancel := context.WithDeadline(ctx, stopAt)
			defer rcancel()
			var mine []int64
			for {
				_, data, err := c.Read(rctx)
				if err != nil {
					break
				}
				now := time.Now().UnixMilli()
				frames.Add(1)
				var f struct {
					Rows  json.RawMessage `json:"rows"`
					Order []string        `json:"order"`
				}
				if json.Unmarshal(data, &f) != nil {
					continue
				}
				var probe float64
				var list []rows.Row
				if json.Unmarshal(f.Rows, &list) == nil {
					for _, r := range list {
						if r.Member == "probe" {
							probe = r.Value
						}
					}
				} else {
					var m map[string]rows.Row
					if json.Unmarshal(f.Rows, &m) == nil {
						probe = m["probe"].Value
					}
				}
				if probe > last {
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
	return json.NewEncoder(os.Stdout).Encode(report{Connected: int(connected.Load()), Frames: frames.Load(), Latencies: lat})
}
