package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/redis/go-redis/v9"

	"podium/internal/redistest"
	"podium/live"
)

// TestSentinelFailoverUnderLoad kills the primary a Sentinel set-up watches
// while API writes arrive and browsers watch: the app follows the new
// primary by itself, every write retried with its idempotency key counts
// once, and every watcher converges to the exact standings.
func TestSentinelFailoverUnderLoad(t *testing.T) {
	t.Parallel()
	st, err := redistest.StartSentinel()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	vars := map[string]string{"REDIS_SENTINEL_ADDRS": strings.Join(st.Addrs(), ","), "REDIS_MASTER_NAME": st.Master, "LIVE_TICK": "20ms"}
	failoverUnderLoad(t, vars, func(string) {
		// Everything written so far (the API key, the board) is on the
		// replica before the kill: with asynchronous replication, a
		// replica that lags on a loaded machine would be promoted without
		// them, and every write after the failover would be refused 401.
		rdb := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: st.Master, SentinelAddrs: st.Addrs()})
		defer rdb.Close()
		replicated(t, rdb)
		st.Primary.Stop()
	})
}

// replicated waits until a replica holds everything written to the
// primary rdb talks to: a marker written now, then WAIT for one replica's
// acknowledgement (replication keeps order, so what came before is there
// too).
func replicated(t *testing.T, rdb *redis.Client) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for {
		err := rdb.Set(ctx, "failover-test:marker", time.Now().UnixNano(), 0).Err()
		if err == nil {
			if n, werr := rdb.Do(ctx, "WAIT", 1, 1000).Int(); werr == nil && n >= 1 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no replica acknowledged the writes in a minute (last error %v)", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestClusterFailoverUnderLoad does the same on a Redis Cluster, killing
// the primary of the written board's slot.
func TestClusterFailoverUnderLoad(t *testing.T) {
	t.Parallel()
	cluster, err := redistest.StartCluster(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	vars := map[string]string{"REDIS_CLUSTER_ADDRS": strings.Join(cluster.Addrs(), ","), "LIVE_TICK": "20ms"}
	failoverUnderLoad(t, vars, func(id string) {
		p, err := cluster.PrimaryOf(context.Background(), "lb:{"+id+"}:all")
		if err != nil {
			t.Error(err)
			return
		}
		cluster.Node(p).Stop()
	})
}

func failoverUnderLoad(t *testing.T, vars map[string]string, kill func(board string)) {
	ctx := context.Background()
	vars["API_ADDR_LIMIT"], vars["API_KEY_LIMIT"] = "10000000", "10000000"
	s := serve(t, nil, vars)
	var out, errOut bytes.Buffer
	if err := runCommand(ctx, []string{"apikey", "create", "--name", "load"}, env(t, vars), nil, &out, &errOut); err != nil {
		t.Fatalf("apikey create: %v", err)
	}
	key := strings.TrimSpace(out.String())
	const id = "failover"
	s.must(201, "POST", "/api/v1/boards", key, map[string]any{"id": id, "title": "Failover", "periods": []string{"all"}, "tie_break": "member"})
	watchers := make([]*standings, 3)
	for i := range watchers {
		watchers[i] = watchStandings(t, s.base, id)
	}

	// Four writers, each adding 1 to its own member over and over; a write
	// that fails is retried with the same idempotency key until it answers.
	const writers = 4
	var acked [writers]atomic.Int64
	var retries atomic.Int64
	var stopWriting atomic.Bool
	var killedAt atomic.Int64
	var gapMu sync.Mutex
	var lastAck time.Time
	var longest time.Duration // the longest time without an acknowledged write
	var afterKill atomic.Int64
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 3 * time.Second}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; !stopWriting.Load(); n++ {
				body, _ := json.Marshal(map[string]any{"member": fmt.Sprintf("w%d", w), "score": 1, "op": "incr"})
				ikey := fmt.Sprintf("w%d-%d", w, n)
				for deadline := time.Now().Add(time.Minute); ; {
					req, _ := http.NewRequest("POST", s.base+"/api/v1/boards/"+id+"/scores", bytes.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+key)
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Idempotency-Key", ikey)
					res, err := client.Do(req)
					last := fmt.Sprint(err)
					if err == nil {
						answer, _ := io.ReadAll(io.LimitReader(res.Body, 300))
						res.Body.Close()
						if res.StatusCode == 200 {
							break
						}
						last = fmt.Sprintf("%d %s", res.StatusCode, answer)
					}
					if time.Now().After(deadline) {
						t.Errorf("writer %d: write %d never succeeded; the last answer: %s", w, n, last)
						return
					}
					retries.Add(1)
					time.Sleep(50 * time.Millisecond)
				}
				acked[w].Add(1)
				gapMu.Lock()
				if now := time.Now(); !lastAck.IsZero() {
					longest = max(longest, now.Sub(lastAck))
					lastAck = now
				} else {
					lastAck = now
				}
				gapMu.Unlock()
				if killedAt.Load() != 0 {
					afterKill.Add(1)
				}
			}
		}()
	}
	// Every writer under way before the kill, and every one again after
	// the failover, for a good while (counted in writes, not seconds: a
	// loaded machine writes slower).
	everyWriter := func(n int64, since []int64) func() bool {
		return func() bool {
			for w := range writers {
				if acked[w].Load()-since[w] < n {
					return false
				}
			}
			return true
		}
	}
	eventually(t, "writes before the kill", everyWriter(25, make([]int64, writers)))
	killedAt.Store(time.Now().UnixNano())
	kill(id)
	// Writes in flight at the kill may still succeed: wait for plenty more.
	// The failover itself (Sentinel's down-after, the election, the
	// clients finding the new primary) takes seconds more on a loaded
	// machine: the bound is generous, the condition is what counts.
	eventuallyWithin(t, "writes after the failover", time.Minute, func() bool { return afterKill.Load() > 200 })
	var recovered []int64
	for w := range writers {
		recovered = append(recovered, acked[w].Load())
	}
	eventually(t, "every writer to go on after the failover", everyWriter(25, recovered))
	stopWriting.Store(true)
	wg.Wait()
	stopped := time.Now()

	want := map[string]int64{}
	var total int64
	for w := range writers {
		want[fmt.Sprintf("w%d", w)] = acked[w].Load()
		total += acked[w].Load()
	}
	var lost, doubled int64
	page := s.must(200, "GET", "/api/v1/boards/"+id+"/entries?period=all&limit=10", "", nil)
	var got struct {
		Entries []struct {
			Member string `json:"member"`
			Score  int64  `json:"score"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(page), &got); err != nil {
		t.Fatal(err)
	}
	have := map[string]int64{}
	for _, e := range got.Entries {
		have[e.Member] = e.Score
	}
	for m, n := range want {
		if d := have[m] - n; d > 0 {
			doubled += d
		} else {
			lost -= d
		}
	}
	for i, w := range watchers {
		w.waitFor(t, fmt.Sprintf("watcher %d to show the final standings", i), have)
	}
	converged := time.Since(stopped)
	gapMu.Lock()
	t.Logf("%d writes acknowledged (%d retries); lost %d, doubled %d; writes paused for %v at most; every watcher exact %v after the last write",
		total, retries.Load(), lost, doubled, longest.Round(time.Millisecond), converged.Round(time.Millisecond))
	gapMu.Unlock()
	if strings.Contains(s.log.String(), "refused CONFIG") {
		t.Errorf("the hub took the dead primary for one that refuses CONFIG:\n%s", s.log)
	}
	if doubled != 0 || lost != 0 {
		t.Errorf("writes lost %d, doubled %d: want none (Redis %v, standings %v)", lost, doubled, have, want)
	}
}

// standings is a live watcher's view of a board, kept by applying frames.
type standings struct {
	mu    sync.Mutex
	state live.Snapshot
	err   error
}

func watchStandings(t *testing.T, base, id string) *standings {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, _, err := websocket.Dial(ctx, strings.Replace(base, "http", "ws", 1)+"/live?board="+id+"&period=all", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(1 << 20)
	s := &standings{}
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); c.CloseNow(); <-done })
	go func() {
		defer close(done)
		for {
			_, data, err := c.Read(ctx)
			s.mu.Lock()
			if err != nil {
				s.err = err
				s.mu.Unlock()
				return
			}
			var head struct{ Type string }
			_ = json.Unmarshal(data, &head)
			if head.Type == "snapshot" {
				var snap live.Snapshot
				err = json.Unmarshal(data, &snap)
				s.state = snap
			} else {
				var d live.Delta
				err = json.Unmarshal(data, &d)
				s.state = live.Apply(&s.state, d)
			}
			if err != nil {
				s.err = err
			}
			s.mu.Unlock()
		}
	}()
	return s
}

func (s *standings) waitFor(t *testing.T, what string, want map[string]int64) {
	t.Helper()
	eventually(t, what, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.err != nil {
			t.Fatalf("%s: the socket failed: %v", what, s.err)
		}
		if len(s.state.Rows) != len(want) {
			return false
		}
		for _, r := range s.state.Rows {
			if fmt.Sprint(want[r.Member]) != r.Score {
				return false
			}
		}
		return true
	})
}
