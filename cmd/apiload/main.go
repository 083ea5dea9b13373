// Command apiload drives the JSON API's score submissions for a fixed time
// from a fixed number of keep-alive connections, and reports throughput,
// latency and errors. make bench-api runs it against a private server and
// Redis on loopback (scripts/bench-api.sh); it stops by itself.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "apiload:", err)
		os.Exit(1)
	}
}

func run() error {
	base := flag.String("url", "http://127.0.0.1:8080", "server to load (loopback only)")
	key := flag.String("key", "", "API key allowed to write the board")
	boardID := flag.String("board", "bench", "board to write")
	conns := flag.Int("conns", 50, "concurrent connections, each with one request in flight")
	batch := flag.Int("batch", 0, "scores per request: 0 sends single submissions, N a batch of N")
	members := flag.Int("members", 100_000, "members to spread scores over")
	duration := flag.Duration("duration", 10*time.Second, "how long to load (at most 5m)")
	noRanks := flag.Bool("noranks", false, `batches ask for no ranks ("ranks": false)`)
	fixed := flag.Int("score", 0, "send this score every time (default: 1-100 at random)")
	abandon := flag.Duration("abandon", 0, "hang up each request after a random time up to this (0: never): clients that go away mid-request")
	flag.Parse()
	u, err := url.Parse(*base)
	if err != nil || !isLoopback(u.Hostname()) {
		return fmt.Errorf("-url %q: load only a server on this machine's loopback", *base)
	}
	if *key == "" || *conns < 1 || *conns > 1000 || *batch < 0 || *batch > 1000 || *duration <= 0 || *duration > 5*time.Minute {
		return errors.New("need -key, -conns 1-1000, -batch 0-1000, -duration up to 5m")
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: *conns, MaxConnsPerHost: *conns}}
	target := strings.TrimRight(*base, "/") + "/api/v1/boards/" + url.PathEscape(*boardID) + "/scores"

	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	type result struct {
		lat    []time.Duration
		ok     int
		gone   int // hung up on purpose
		errs   map[string]int
		scores int
	}
	results := make([]result, *conns)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range *conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[w]
			r.errs = map[string]int{}
			rng := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano())))
			var body bytes.Buffer
			score := func() int {
				if *fixed != 0 {
					return *fixed
				}
				return 1 + rng.IntN(100)
			}
			for ctx.Err() == nil {
				body.Reset()
				n := 1
				if *batch == 0 {
					fmt.Fprintf(&body, `{"member":"m%d","score":%d}`, rng.IntN(*members), score())
				} else {
					n = *batch
					body.WriteString(`{"scores":[`)
					for i := range n {
						if i > 0 {
							body.WriteByte(',')
						}
						fmt.Fprintf(&body, `{"member":"m%d","score":%d}`, rng.IntN(*members), score())
					}
					body.WriteString(`]`)
					if *noRanks {
						body.WriteString(`,"ranks":false`)
					}
					body.WriteString(`}`)
				}
				rctx, stop := ctx, context.CancelFunc(func() {})
				if *abandon > 0 {
					rctx, stop = context.WithTimeout(context.Background(), time.Duration(rng.Int64N(int64(*abandon))+1))
				}
				req, _ := http.NewRequestWithContext(rctx, http.MethodPost, target, bytes.NewReader(body.Bytes()))
				req.Header.Set("Authorization", "Bearer "+*key)
				req.Header.Set("Content-Type", "application/json")
				t0 := time.Now()
				res, err := client.Do(req)
				if err != nil {
					switch {
					case *abandon > 0 && rctx.Err() != nil:
						r.gone++
					case ctx.Err() == nil:
						r.errs[err.Error()]++
					}
					stop()
					continue
				}
				_, err = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				stop()
				if err != nil && *abandon > 0 {
					r.gone++
					continue
				}
				r.lat = append(r.lat, time.Since(t0))
				if res.StatusCode == http.StatusOK {
					r.ok++
					r.scores += n
				} else {
					r.errs[res.Status]++
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var lat []time.Duration
	ok, scores, gone := 0, 0, 0
	errs := map[string]int{}
	for _, r := range results {
		lat = append(lat, r.lat...)
		ok += r.ok
		gone += r.gone
		scores += r.scores
		for k, v := range r.errs {
			errs[k] += v
		}
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	nerr := 0
	for _, v := range errs {
		nerr += v
	}
	// One line a harness can read: requests/s scores/s p50 p99 errors.
	fmt.Printf("requests_per_s=%.0f scores_per_s=%.0f p50_ms=%.2f p99_ms=%.2f ok=%d abandoned=%d errors=%d\n",
		float64(ok)/elapsed.Seconds(), float64(scores)/elapsed.Seconds(),
		float64(pct(0.50))/1e6, float64(pct(0.99))/1e6, ok, gone, nerr)
	for k, v := range errs {
		fmt.Fprintf(os.Stderr, "  %d x %s\n", v, k)
	}
	return nil
}

// isLoopback accepts only literal loopback addresses and "localhost": a
// name such as 127.example.com would be looked up and could be anywhere.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
