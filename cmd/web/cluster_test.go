package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/app"
	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
)

// served is the real binary's run, serving on a free address until the
// test ends, with its log kept.
type served struct {
	t    *testing.T
	base string
	log  *logBuffer
	// cancel asks run to stop, as SIGTERM would, without waiting for it;
	// stop does both and returns run's error.
	cancel context.CancelFunc
	stop   func() error
}

// logBuffer keeps what the server logs, for the test to read at the end.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// upURL finds the URL the server logs once it listens.
var upURL = regexp.MustCompile(`msg="podium is up" url=(\S+)`)

func serve(t *testing.T, args []string, vars map[string]string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	logs := &logBuffer{}
	// Port 0: the server takes a free port itself and logs its URL. A port
	// picked here and passed on could be taken meanwhile (the embedded
	// store takes one of its own as it starts).
	go func() {
		done <- run(ctx, append([]string{"--addr", "127.0.0.1:0"}, args...), env(t, vars), io.Discard, logs)
	}()
	s := &served{t: t, log: logs, cancel: cancel}
	eventually(t, "the server", func() bool {
		select {
		case err := <-done:
			t.Fatalf("run: %v\n%s", err, logs)
		default:
		}
		if s.base == "" {
			m := upURL.FindStringSubmatch(logs.String())
			if m == nil {
				return false
			}
			s.base = m[1]
		}
		res, err := http.Get(s.base + "/readyz")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == http.StatusOK
	})
	var once bool
	var err error
	s.stop = func() error {
		if !once {
			once = true
			cancel()
			select {
			case err = <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("run did not stop after cancel")
			}
		}
		return err
	}
	t.Cleanup(func() { s.stop() })
	return s
}

// call sends a JSON request with the API key and returns the status and body.
func (s *served) call(method, path, key string, body any, header ...string) (int, string) {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.base+path, r)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(out)
}

// must is call that fails the test unless the status is want.
func (s *served) must(want int, method, path, key string, body any, header ...string) string {
	s.t.Helper()
	st, out := s.call(method, path, key, body, header...)
	if st != want {
		s.t.Fatalf("%s %s: %d %s, want %d", method, path, st, out, want)
	}
	return out
}

// watch opens a live socket on a board's all-time view.
func (s *served) watch(id string) *liveWatch {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, strings.Replace(s.base, "http", "ws", 1)+"/live?board="+id+"&period=all", nil)
	if err != nil {
		s.t.Fatalf("live socket of %s: %v", id, err)
	}
	c.SetReadLimit(1 << 20)
	s.t.Cleanup(func() { c.CloseNow() })
	return &liveWatch{t: s.t, c: c}
}

type liveWatch struct {
	t *testing.T
	c *websocket.Conn
}

// until reads frames until one holds want, or fails after the deadline.
func (w *liveWatch) until(what, want string, within time.Duration) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var last []byte
	for {
		_, data, err := w.c.Read(ctx)
		if err != nil {
			w.t.Fatalf("waiting for %s: %v (the last frame: %s)", what, err, last)
		}
		last = data
		if strings.Contains(string(data), want) {
			return
		}
	}
}

// boardsOnEachPrimary picks one board id per primary of the cluster.
func boardsOnEachPrimary(t *testing.T, c *redistest.Cluster, prefix string) []string {
	t.Helper()
	primaries, err := c.Primaries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byPrimary := map[string]string{}
	for i := 0; len(byPrimary) < len(primaries); i++ {
		id := fmt.Sprintf("%s%d", prefix, i)
		p, err := c.PrimaryOf(context.Background(), redisstore.ZSetKey(id, board.Period{Kind: board.AllTime}))
		if err != nil {
			t.Fatal(err)
		}
		if byPrimary[p] == "" {
			byPrimary[p] = id
		}
	}
	var ids []string
	for _, p := range primaries {
		ids = append(ids, byPrimary[p])
	}
	return ids
}

// TestEveryFeatureOnCluster runs the binary on a real three-primary Redis
// Cluster: the demo, the admin and key commands, boards on every primary
// through the API (with idempotent retries), pages, search, live updates
// of every board, the console and its audit log, and the archive commands.
// Nothing may log a cross-slot or redirect error.
func TestEveryFeatureOnCluster(t *testing.T) {
	t.Parallel()
	cluster, err := redistest.StartCluster(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx := context.Background()
	seeds := strings.Join(cluster.Addrs()[:2], ",") // the rest are discovered
	vars := map[string]string{"REDIS_CLUSTER_ADDRS": seeds, "ADMIN_USER": "alice", "ADMIN_PASSWORD": "correct horse battery", "LIVE_TICK": "20ms"}
	s := serve(t, []string{"--demo"}, vars)

	var out, errOut bytes.Buffer
	if err := runCommand(ctx, []string{"apikey", "create", "--name", "cluster test"}, env(t, vars), nil, &out, &errOut); err != nil {
		t.Fatalf("apikey create on a cluster: %v %s", err, errOut.String())
	}
	key := strings.TrimSpace(out.String())
	if err := runCommand(ctx, []string{"admin", "create", "--user", "bob"}, env(t, vars), strings.NewReader("another long password\n"), &out, &errOut); err != nil {
		t.Fatalf("admin create on a cluster: %v", err)
	}

	home := s.must(200, "GET", "/", "", nil)
	for _, demo := range []string{"Neon Arcade", "100 m Sprint", "Monthly Sales"} {
		if !strings.Contains(home, demo) {
			t.Errorf("the home page lacks the demo board %q", demo)
		}
	}

	cc := cluster.Client(t)
	ids := boardsOnEachPrimary(t, cluster, "shard")
	watchers := make([]*liveWatch, len(ids))
	for i, id := range ids {
		s.must(201, "POST", "/api/v1/boards", key, map[string]any{"id": id, "title": "Shard " + id, "periods": []string{"all", "week"}, "tie_break": "member"})
		body := map[string]any{"member": "ann", "score": 10, "name": "Ann Example"}
		first := s.must(200, "POST", "/api/v1/boards/"+id+"/scores", key, body, "Idempotency-Key", "k-"+id)
		again := s.must(200, "POST", "/api/v1/boards/"+id+"/scores", key, body, "Idempotency-Key", "k-"+id)
		if strings.Replace(again, `"replayed":true,`, "", 1) != first {
			t.Errorf("%s: a retried submission answered %s, then %s", id, first, again)
		}
		s.must(200, "POST", "/api/v1/boards/"+id+"/scores", key, map[string]any{"scores": []map[string]any{{"member": "bob", "score": 7}, {"member": "cat", "score": 3}}})
		if page := s.must(200, "GET", "/api/v1/boards/"+id+"/entries?period=all", "", nil); !strings.Contains(page, `"total":3`) || !strings.Contains(page, "Ann Example") {
			t.Errorf("%s entries: %s", id, page)
		}
		if m := s.must(200, "GET", "/api/v1/boards/"+id+"/members/ann", "", nil); !strings.Contains(m, `"score":10`) {
			t.Errorf("%s: a retried submission counted twice, or was lost: %s", id, m)
		}
		s.must(200, "GET", "/api/v1/boards/"+id+"/members/cat/around?period=all", "", nil)
		if html := s.must(200, "GET", "/b/"+id+"?q=ann", "", nil); !strings.Contains(html, "Ann Example") {
			t.Errorf("%s: the board page's search does not find Ann", id)
		}
		watchers[i] = s.watch(id)
		watchers[i].until("the first snapshot of "+id, `"total":3`, 5*time.Second)
	}
	// Live on every primary: an outside write and an API write.
	for i, id := range ids {
		if err := cc.ZIncrBy(ctx, redisstore.ZSetKey(id, board.Period{Kind: board.AllTime}), 100, "cat").Err(); err != nil {
			t.Fatal(err)
		}
		watchers[i].until("cat's outside write on "+id, `"v":103`, 5*time.Second)
		s.must(200, "POST", "/api/v1/boards/"+id+"/scores", key, map[string]any{"member": "dan", "score": 1})
		watchers[i].until("dan's API write on "+id, `"m":"dan"`, 5*time.Second)
	}
	// FCALL podium_submit, loaded on every primary, writes as the API does.
	for i, id := range ids {
		if err := cc.FCall(ctx, "podium_submit", []string{"lb:{" + id + "}:def"}, "eve", "incr", 500).Err(); err != nil {
			t.Fatalf("FCALL podium_submit on %s: %v", id, err)
		}
		watchers[i].until("eve's FCALL on "+id, `"m":"eve"`, 5*time.Second)
	}

	// The console: sign in, the audit log, the keys, a score change.
	b := newBrowser(t, s.base, "192.0.2.10")
	if res := b.signIn("alice", "correct horse battery"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in on a cluster: %d", res.StatusCode)
	}
	for _, path := range []string{"/admin", "/admin/audit", "/admin/keys", "/admin/boards/" + ids[0]} {
		res := b.do("GET", path, nil)
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
		if path == "/admin/audit" && !strings.Contains(string(page), ids[0]) {
			t.Errorf("the audit log lacks the writes to %s", ids[0])
		}
	}

	s.must(200, "DELETE", "/api/v1/boards/"+ids[1]+"/members/bob", key, nil)
	s.must(204, "DELETE", "/api/v1/boards/"+ids[2], key, nil)
	s.must(404, "GET", "/api/v1/boards/"+ids[2], "", nil)

	out.Reset()
	if err := runArchive(ctx, []string{"status"}, env(t, vars), &out); err != nil {
		t.Fatalf("archive status on a cluster: %v", err)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"CROSSSLOT", "MOVED", "ASK ", "level=ERROR"} {
		if strings.Contains(s.log.String(), bad) {
			t.Errorf("the log says %s:\n%s", bad, s.log)
		}
	}
	if n, err := cc.SCard(ctx, redisstore.BoardsKey).Result(); err != nil || n < 4 {
		t.Errorf("boards index: %d, %v", n, err)
	}
}

// TestTwoProcessesOneRedis runs two replicas of the app on one Redis, as
// behind a load balancer: a write through one reaches a browser watching
// through the other, and a key made by one works on the other.
func TestTwoProcessesOneRedis(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	vars := map[string]string{"REDIS_URL": "redis://" + srv.Addr, "LIVE_TICK": "20ms"}
	a, b := serve(t, nil, vars), serve(t, nil, vars)
	var out, errOut bytes.Buffer
	if err := runCommand(context.Background(), []string{"apikey", "create", "--name", "two"}, env(t, vars), nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(out.String())
	a.must(201, "POST", "/api/v1/boards", key, map[string]any{"id": "shared", "title": "Shared", "periods": []string{"all"}})
	w := b.watch("shared")
	w.until("the empty board through the other process", `"total":0`, 5*time.Second)
	a.must(200, "POST", "/api/v1/boards/shared/scores", key, map[string]any{"member": "ann", "score": 42})
	w.until("ann's write through the first process", `"m":"ann"`, 5*time.Second)
	b.must(200, "POST", "/api/v1/boards/shared/scores", key, map[string]any{"member": "bob", "score": 50})
	if page := a.must(200, "GET", "/api/v1/boards/shared/entries?period=all", "", nil); !strings.Contains(page, `"member":"bob"`) {
		t.Fatalf("a write through the second process is missing from the first: %s", page)
	}
}

// TestParseTopology: Cluster and Sentinel settings are read, and every
// combination that cannot mean one Redis stops the binary with its reason.
func TestParseTopology(t *testing.T) {
	t.Parallel()
	cfg, err := app.ParseConfig(nil, env(t, map[string]string{"REDIS_CLUSTER_ADDRS": "r1:6379, r2:6380", "REDIS_PASSWORD": "pw", "REDIS_TLS": "true"}), io.Discard)
	if err != nil || !slices.Equal(cfg.Redis.ClusterAddrs, []string{"r1:6379", "r2:6380"}) || cfg.Redis.Password != "pw" || !cfg.Redis.TLS || cfg.Embedded() {
		t.Fatalf("cluster: %+v %v", cfg.Redis, err)
	}
	cfg, err = app.ParseConfig([]string{"--redis-sentinel-addrs", "s1:26379,s2:26379", "--redis-master-name", "podium"}, env(t, nil), io.Discard)
	if err != nil || len(cfg.Redis.SentinelAddrs) != 2 || cfg.Redis.MasterName != "podium" || cfg.Embedded() {
		t.Fatalf("sentinel: %+v %v", cfg.Redis, err)
	}
	if cfg, err := app.ParseConfig(nil, env(t, nil), io.Discard); err != nil || !cfg.Embedded() {
		t.Fatalf("nothing set is the embedded store: %v", err)
	}
	for vars, want := range map[*map[string]string]string{
		{"REDIS_URL": "redis://r:6379", "REDIS_CLUSTER_ADDRS": "r1:6379"}:                  "set only one of the three",
		{"REDIS_URL": "redis://r:6379", "REDIS_SENTINEL_ADDRS": "s1:26379"}:                "set only one of the three",
		{"REDIS_CLUSTER_ADDRS": "r1:6379", "REDIS_SENTINEL_ADDRS": "s1:26379"}:             "exclude each other",
		{"REDIS_SENTINEL_ADDRS": "s1:26379"}:                                               "needs REDIS_MASTER_NAME",
		{"REDIS_MASTER_NAME": "podium"}:                                                    "REDIS_MASTER_NAME is for Sentinel",
		{"REDIS_URL": "redis://r:6379", "REDIS_PASSWORD": "pw"}:                            "put them in REDIS_URL",
		{"REDIS_CLUSTER_ADDRS": " , "}:                                                     "lists no host:port",
		{"REDIS_CLUSTER_ADDRS": "r1"}:                                                      `"r1" is not host:port`,
		{"REDIS_SENTINEL_ADDRS": "s1:26379", "REDIS_MASTER_NAME": "x", "REDIS_TLS": "yes"}: "REDIS_TLS",
	} {
		_, err := app.ParseConfig(nil, env(t, *vars), io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want an error saying %q", *vars, err, want)
		}
	}
	var help bytes.Buffer
	app.ParseConfig([]string{"--help"}, env(t, nil), &help)
	for _, s := range []string{"REDIS_CLUSTER_ADDRS", "REDIS_SENTINEL_ADDRS", "REDIS_MASTER_NAME", "REDIS_PASSWORD"} {
		if !strings.Contains(help.String(), s) {
			t.Errorf("--help does not list %s", s)
		}
	}
}
