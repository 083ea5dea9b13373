package live

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
	"podium/rows"
)

var srv *redistest.Server

func TestMain(m *testing.M) { redistest.Main(m, &srv) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// patience is how long a test waits for something that is to happen before
// it fails: long, since a loaded machine may be slow to get there, and a
// test that passes never waits it out.
const patience = 20 * time.Second

type liveFixture struct {
	t     *testing.T
	rdb   redis.UniversalClient
	store *redisstore.Store
	hub   *Hub
	http  *httptest.Server
	stop  func() // stops the hub, as a shutdown does
}

func newLiveFixture(t *testing.T, opts Options) *liveFixture {
	t.Helper()
	rdb := srv.Client(t)
	if err := rdb.FlushDB(context.Background()).Err(); err != nil { // our private server
		t.Fatal(err)
	}
	return newLiveFixtureOn(t, rdb, opts)
}

// newLiveFixtureOn runs a hub and its WebSocket endpoint on any Redis client.
func newLiveFixtureOn(t *testing.T, rdb redis.UniversalClient, opts Options) *liveFixture {
	t.Helper()
	store := redisstore.NewStore(rdb)
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	if opts.Tick == 0 {
		opts.Tick = 20 * time.Millisecond
	}
	hub := New(rdb, store, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	h := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		spec := Spec{Board: q.Get("board"), Kind: board.Kind(q.Get("period")), Limit: 10, Member: q.Get("member"), Radius: 2, Recent: q.Get("recent") == "1", Live: q.Get("live") == "1"}
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		hub.Serve(w, r, spec, []string{"*"}, host, nil)
	}))
	h.Config.ConnContext = ConnContext
	h.Start()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case <-done:
		case <-time.After(hub.opts.CloseTimeout + patience): // Run waits up to CloseTimeout for the clients
			t.Error("hub did not stop")
		}
	}
	t.Cleanup(func() {
		stop()
		h.Close()
	})
	// Until the hub has subscribed, a write goes unnoticed (in production
	// the subscription is up long before anyone writes): wait for it, or
	// for the fall-back to polling, so a test's first change is seen.
	probe := "lb:{fixture-probe}:all"
	for deadline := time.Now().Add(patience); hub.Stats().Events == 0 && !hub.Polling(); {
		if time.Now().After(deadline) {
			t.Fatalf("the hub neither subscribed nor fell back to polling in %v", patience)
		}
		rdb.ZIncrBy(ctx, probe, 1, "x") // a change each time: an unchanged ZADD notifies nobody
		time.Sleep(10 * time.Millisecond)
	}
	rdb.Del(ctx, probe)
	return &liveFixture{t: t, rdb: rdb, store: store, hub: hub, http: h, stop: stop}
}

func (f *liveFixture) board(id string, scores ...any) *board.Board {
	f.t.Helper()
	b, err := f.store.CreateBoard(context.Background(), board.Board{ID: id, Title: id, TieBreak: board.ByMember})
	if err != nil {
		f.t.Fatal(err)
	}
	for i := 0; i+1 < len(scores); i += 2 {
		if err := f.rdb.ZAdd(context.Background(), redisstore.ZSetKey(id, board.Period{Kind: board.AllTime}), redis.Z{Member: scores[i], Score: float64(scores[i+1].(int))}).Err(); err != nil {
			f.t.Fatal(err)
		}
	}
	return &b
}

// wsClient is a test WebSocket client that keeps the state it is sent.
type wsClient struct {
	t         *testing.T
	c         *websocket.Conn
	state     Snapshot
	frames    int
	snapshots int
	recent    []rows.Activity // the last recent-changes frame's items
	recents   int
}

func (f *liveFixture) dial(query string) *wsClient {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c, _, err := websocket.Dial(ctx, strings.Replace(f.http.URL, "http", "ws", 1)+"/?"+query, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	c.SetReadLimit(1 << 20)
	f.t.Cleanup(func() { c.CloseNow() })
	return &wsClient{t: f.t, c: c}
}

// next reads one frame and applies it.
func (w *wsClient) next(timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, data, err := w.c.Read(ctx)
	if err != nil {
		return "", err
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		w.t.Fatalf("bad frame %s: %v", data, err)
	}
	w.frames++
	switch head.Type {
	case "snapshot":
		var s Snapshot
		if err := json.Unmarshal(data, &s); err != nil {
			w.t.Fatalf("bad snapshot %s: %v", data, err)
		}
		w.state = s
		w.snapshots++
	case "diff":
		var d Delta
		if err := json.Unmarshal(data, &d); err != nil {
			w.t.Fatalf("bad diff %s: %v", data, err)
		}
		w.state = Apply(&w.state, d)
	case "recent":
		var r struct{ Items []rows.Activity }
		if err := json.Unmarshal(data, &r); err != nil {
			w.t.Fatalf("bad recent frame %s: %v", data, err)
		}
		w.recent = r.Items
		w.recents++
	default:
		w.t.Fatalf("unknown frame type %q", head.Type)
	}
	return head.Type, nil
}

// until reads frames until the state satisfies ok, or fails after patience.
func (w *wsClient) until(what string, ok func(s Snapshot) bool) {
	w.t.Helper()
	w.within(patience, what, ok)
}

// within is until with a deadline of its own, for steps whose time is
// Redis' to take (a failover's new primary, read once the cluster client
// finds it) rather than the hub's.
func (w *wsClient) within(d time.Duration, what string, ok func(s Snapshot) bool) {
	w.t.Helper()
	deadline := time.Now().Add(d)
	for !ok(w.state) {
		left := time.Until(deadline)
		if left <= 0 {
			w.t.Fatalf("timed out waiting for %s; state %+v", what, w.state)
		}
		if _, err := w.next(left); err != nil {
			w.t.Fatalf("waiting for %s: %v; state %+v", what, err, w.state)
		}
	}
}

func order(s Snapshot) string {
	var out []string
	for _, r := range s.Rows {
		out = append(out, fmt.Sprintf("%s:%d", r.Member, r.Rank))
	}
	return strings.Join(out, " ")
}

func TestOutsideZIncrByReachesClient(t *testing.T) {
	f := newLiveFixture(t, Options{})
	b := f.board("game", "ann", 50, "bob", 40, "cat", 30)
	ws := f.dial("board=game&period=all")
	ws.until("first snapshot", func(s Snapshot) bool { return order(s) == "ann:1 bob:2 cat:3" })
	start := time.Now()
	if err := f.rdb.ZIncrBy(context.Background(), redisstore.ZSetKey(b.ID, board.Period{Kind: board.AllTime}), 25, "cat").Err(); err != nil {
		t.Fatal(err)
	}
	ws.until("cat to move up", func(s Snapshot) bool { return order(s) == "cat:1 ann:2 bob:3" })
	t.Logf("outside ZINCRBY reached the client in %v", time.Since(start).Round(time.Millisecond))
	// A rename, even straight into Redis, shows up too.
	if _, err := f.store.SetName(context.Background(), b.ID, "ann", "Ann Lee", board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	ws.until("the new name", func(s Snapshot) bool { return len(s.Rows) == 3 && s.Rows[1].Name == "Ann Lee" })
}

func TestBurstIsCoalescedAndEndsExact(t *testing.T) {
	f := newLiveFixture(t, Options{Tick: 100 * time.Millisecond})
	b := f.board("burst", "seed", 1)
	ws := f.dial("board=burst&period=all")
	ws.until("first snapshot", func(s Snapshot) bool { return s.Total == 1 })
	key := redisstore.ZSetKey(b.ID, board.Period{Kind: board.AllTime})
	frames := ws.frames
	start := time.Now()
	for batch := range 10 { // 10,000 writes over about a second
		pipe := f.rdb.Pipeline()
		for i := range 1000 {
			pipe.ZIncrBy(context.Background(), key, float64(i%7+1), fmt.Sprintf("p%02d", (batch*1000+i)%40))
		}
		if _, err := pipe.Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(90 * time.Millisecond) // the burst's pace (about a tick apart), not a wait for anything
	}
	burst := time.Since(start)
	want, err := f.store.Page(context.Background(), b, board.Period{Kind: board.AllTime}, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	wantRows := rows.Of(b, want.Entries)
	ws.until("the final state", func(s Snapshot) bool {
		return s.Total == want.Total && len(s.Rows) == len(wantRows) && order(s) == order(Snapshot{Rows: wantRows}) && s.Rows[0].Value == wantRows[0].Value
	})
	// Coalescing is at most a frame a tick, for as long as the frames came:
	// until the final state, which a loaded machine may bring some ticks
	// after the burst.
	elapsed := time.Since(start)
	for i := range wantRows {
		if !ws.state.Rows[i].Equal(wantRows[i]) {
			t.Fatalf("row %d: %+v, want %+v", i, ws.state.Rows[i], wantRows[i])
		}
	}
	n := ws.frames - frames
	limit := int(elapsed/(100*time.Millisecond)) + 3
	t.Logf("10,000 writes in %v became %d frames, the last %v after the burst began (ticks in that time: %d)",
		burst.Round(time.Millisecond), n, elapsed.Round(time.Millisecond), int(elapsed/(100*time.Millisecond)))
	if n > limit {
		t.Fatalf("%d frames in %v (a %v burst); want at most %d", n, elapsed, burst, limit)
	}
}

type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }
func (l *syncLog) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func TestWebSocketOriginCheck(t *testing.T) {
	f := newLiveFixture(t, Options{})
	f.board("origins", "ann", 1)
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hub.Serve(w, r, Spec{Board: "origins", Kind: board.AllTime, Limit: 10}, []string{"https://blog.example.com"}, r.RemoteAddr, nil)
	}))
	defer h.Close()
	url := strings.Replace(h.URL, "http", "ws", 1)
	for _, tc := range []struct {
		origin string
		ok     bool
	}{
		{"", true},                         // not a browser
		{h.URL, true},                      // the site itself
		{"https://blog.example.com", true}, // in the embed allow-list
		{"https://evil.example.net", false},
		{"http://blog.example.com", false}, // scheme matters
	} {
		hdr := http.Header{}
		if tc.origin != "" {
			hdr.Set("Origin", tc.origin)
		}
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		c, res, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: hdr})
		cancel()
		if (err == nil) != tc.ok {
			t.Errorf("origin %q: err %v, want allowed=%v", tc.origin, err, tc.ok)
		}
		if err == nil {
			c.CloseNow()
		} else if res != nil && res.StatusCode != http.StatusForbidden {
			t.Errorf("origin %q refused with %d, want 403", tc.origin, res.StatusCode)
		}
	}
}
