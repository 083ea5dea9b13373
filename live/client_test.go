package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/board"
	"podium/redisstore"
)

// fakeReader serves one board whose page changes on every read, and counts reads.
type fakeReader struct {
	mu    sync.Mutex
	reads int
	calls int
	// recent changes: how often they were read, and the error they fail with
	recentCalls int
	recentErr   error
	now         time.Time
}

func (f *fakeReader) Now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }

func (f *fakeReader) Board(ctx context.Context, id string) (board.Board, error) {
	b := board.Board{ID: id, Title: id, Periods: []board.Kind{board.AllTime, board.Weekly}}
	b.Normalize()
	return b, b.Validate()
}

func (f *fakeReader) RecentOf(_ context.Context, bs []*board.Board, _ int) []redisstore.RecentResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.recentCalls++
	out := make([]redisstore.RecentResult, len(bs))
	for i := range out {
		out[i].Err = f.recentErr
	}
	return out
}

func (f *fakeReader) ReadViews(ctx context.Context, qs []redisstore.ViewQuery) []redisstore.ViewResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.reads += len(qs)
	out := make([]redisstore.ViewResult, len(qs))
	for i, q := range qs {
		out[i].Page = board.Page{Period: q.Period, Total: f.reads, Entries: []board.Entry{{Rank: 1, Member: "lead", Name: "Lead", Score: float64(f.reads)}}}
	}
	return out
}

// fakeConn records frames; a gate makes writes wait as a slow reader would.
type fakeConn struct {
	mu     sync.Mutex
	frames [][]byte
	gate   chan struct{} // nil: writes go through at once
	// hold, when set, keeps a write from even noticing its deadline until
	// it is closed: a write stuck for as long as a test needs.
	hold   chan struct{}
	closed bool
}

func (c *fakeConn) Write(ctx context.Context, _ websocket.MessageType, p []byte) error {
	if c.hold != nil {
		<-c.hold
	}
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	c.mu.Lock()
	c.frames = append(c.frames, append([]byte(nil), p...))
	c.mu.Unlock()
	return nil
}
func (c *fakeConn) Close(websocket.StatusCode, string) error { return c.CloseNow() }
func (c *fakeConn) Ping(context.Context) error               { return nil }
func (c *fakeConn) CloseNow() error                          { c.mu.Lock(); c.closed = true; c.mu.Unlock(); return nil }
func (c *fakeConn) count() int                               { c.mu.Lock(); defer c.mu.Unlock(); return len(c.frames) }

func (c *fakeConn) types() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, f := range c.frames {
		var h struct{ Type string }
		_ = json.Unmarshal(f, &h)
		out = append(out, h.Type)
	}
	return out
}

func newTestHub(opts Options) (*Hub, *fakeReader) {
	r := &fakeReader{now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	opts.Logger = quiet
	return New(nil, r, opts), r
}

// connect attaches a fake client; its done channel closes when it ends.
func connect(t *testing.T, h *Hub, c *fakeConn) *client {
	t.Helper()
	cl := newClient(c)
	if err := h.attach(context.Background(), cl, Spec{Board: "b", Kind: board.AllTime, Limit: 10}); err != nil {
		t.Fatal(err)
	}
	return cl
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCoalescing(t *testing.T) {
	h, r := newTestHub(Options{})
	fast := &fakeConn{}
	a := connect(t, h, fast)
	b := connect(t, h, &fakeConn{}) // a second client of the same view shares its read
	h.tick(context.Background())
	if r.calls != 1 || r.reads != 1 {
		t.Fatalf("first tick: %d pipelines, %d view reads; want 1 and 1", r.calls, r.reads)
	}
	// Until they have taken the snapshot, the next frame would wait.
	waitFor(t, "the snapshot written", func() bool { return !a.busy.Load() && !b.busy.Load() })
	for range 1000 {
		h.markDirty("lb:{b}:all")
	}
	h.markDirty("lb:{other}:all") // nobody watches it
	h.tick(context.Background())
	h.tick(context.Background()) // nothing dirty: no read
	if r.calls != 2 || r.reads != 2 {
		t.Fatalf("1000 notifications made %d pipelines and %d reads; want 2 and 2", r.calls, r.reads)
	}
	waitFor(t, "two frames", func() bool { return fast.count() == 2 })
	if got := fmt.Sprint(fast.types()); got != "[snapshot diff]" {
		t.Fatalf("frames %s", got)
	}
	if st := h.Stats(); st.Views != 1 || st.Clients != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// TestClientThatNeverReadsIsDroppedWithoutDelayingOthers: the reading
// client gets all its frames while the stuck one's first write has not
// returned (held, whatever the time: no clock decides it), and the stuck
// one is then dropped when that write's WriteTimeout ends.
func TestClientThatNeverReadsIsDroppedWithoutDelayingOthers(t *testing.T) {
	h, _ := newTestHub(Options{WriteTimeout: 150 * time.Millisecond, QueueSize: 4})
	stuck := &fakeConn{gate: make(chan struct{}), hold: make(chan struct{})} // never accepts a frame
	fast := &fakeConn{}
	stuckClient := connect(t, h, stuck)
	fastClient := connect(t, h, fast)
	for i := range 10 {
		h.markDirty("lb:{b}:all")
		ticked := make(chan struct{})
		go func() { defer close(ticked); h.tick(context.Background()) }()
		select {
		case <-ticked:
		case <-time.After(patience):
			t.Fatal("a tick waited for the stuck client's write")
		}
		waitFor(t, fmt.Sprintf("frame %d to the reading client, while the stuck one's write is held", i+1), func() bool { return fast.count() == i+1 && !fastClient.busy.Load() })
	}
	select {
	case <-stuckClient.done:
		t.Fatalf("the stuck client ended (%v) while its write was held", stuckClient.err)
	default:
	}
	close(stuck.hold) // its write now waits for the gate, or its deadline
	select {
	case <-stuckClient.done:
		if !errors.Is(stuckClient.err, context.DeadlineExceeded) {
			t.Fatalf("stuck client ended with %v", stuckClient.err)
		}
	case <-time.After(patience):
		t.Fatal("the stuck client was never dropped")
	}
	waitFor(t, "the stuck client to be detached", func() bool { return h.Stats().Clients == 1 })
}

func TestLaggingClientGetsOneSnapshotNotABacklog(t *testing.T) {
	h, _ := newTestHub(Options{QueueSize: 4, WriteTimeout: 10 * time.Second})
	slow := &fakeConn{gate: make(chan struct{})}
	cl := connect(t, h, slow)
	for range 30 {
		// As if maxHold had passed each time: the view stops waiting for
		// its client and sends (TestBusyViewHoldsItsFrame tests the wait).
		h.mu.Lock()
		cl.view.sentAt = time.Time{}
		h.mu.Unlock()
		h.markDirty("lb:{b}:all")
		h.tick(context.Background())
	}
	close(slow.gate) // it catches up now
	waitFor(t, "the latest frame", func() bool {
		slow.mu.Lock()
		defer slow.mu.Unlock()
		if len(slow.frames) == 0 {
			return false
		}
		var last struct{ Total int }
		_ = json.Unmarshal(slow.frames[len(slow.frames)-1], &last)
		return last.Total == 30
	})
	types := slow.types()
	if len(types) > 1+4 {
		t.Fatalf("a lagging client got %d frames of 30: %v", len(types), types)
	}
	snaps := 0
	for _, ty := range types {
		if ty == "snapshot" {
			snaps++
		}
	}
	if snaps == 0 || types[0] != "snapshot" {
		t.Fatalf("frames %v: no fresh snapshot replaced the backlog", types)
	}
	// Replaying what it got ends at the latest state.
	var state Snapshot
	for _, raw := range slow.frames {
		var head struct{ Type string }
		_ = json.Unmarshal(raw, &head)
		if head.Type == "snapshot" {
			state = Snapshot{}
			_ = json.Unmarshal(raw, &state)
		} else {
			var d Delta
			_ = json.Unmarshal(raw, &d)
			state = Apply(&state, d)
		}
	}
	if state.Total != 30 || state.Rows[0].Value != 30 {
		t.Fatalf("final state %+v, want the 30th read", state)
	}
	if h.Stats().Dropped == 0 {
		t.Fatal("dropped frames not counted")
	}
}

// TestBusyViewHoldsItsFrame: while a view's clients are still writing its
// last frame, its next one waits (no read, no frame) for a tick, up to
// maxHold; then it goes out whatever they are doing.
func TestBusyViewHoldsItsFrame(t *testing.T) {
	h, r := newTestHub(Options{WriteTimeout: 10 * time.Second})
	slow := &fakeConn{gate: make(chan struct{})}
	cl := connect(t, h, slow)
	h.tick(context.Background()) // the first snapshot: its write waits at the gate
	for range 3 {
		h.stats.notified() // as the listener does for each notification
		h.markDirty("lb:{b}:all")
		h.tick(context.Background())
	}
	if r.reads != 1 || h.Stats().Held != 3 {
		t.Fatalf("%d reads, %d held, while the client had not taken the snapshot; want 1 and 3", r.reads, h.Stats().Held)
	}
	slow.gate <- struct{}{} // it takes the snapshot
	waitFor(t, "the client to take its frame", func() bool { return !cl.busy.Load() })
	h.tick(context.Background()) // the held change goes out now, unasked
	if r.reads != 2 {
		t.Fatalf("%d reads after the client caught up, want 2", r.reads)
	}
	// The wait of the notifications it held is measured when it goes out.
	if lat := h.Stats().FrameLatencySeconds; lat.Count != 1 {
		t.Fatalf("%d notification-to-frame observations after a held frame went out, want 1", lat.Count)
	}
	slow.gate <- struct{}{}
	waitFor(t, "the diff", func() bool { return slow.count() == 2 && !cl.busy.Load() })

	// A view held for maxHold sends anyway.
	h.markDirty("lb:{b}:all")
	h.tick(context.Background()) // sends: the client is idle
	h.markDirty("lb:{b}:all")
	h.tick(context.Background()) // held: the last frame waits at the gate
	if r.reads != 3 {
		t.Fatalf("%d reads, want 3", r.reads)
	}
	h.mu.Lock()
	cl.view.sentAt = time.Now().Add(-maxHold)
	h.mu.Unlock()
	h.tick(context.Background())
	if r.reads != 4 {
		t.Fatalf("%d reads after maxHold, want 4: a busy view must still send once a second", r.reads)
	}
	if st := h.Stats(); st.Held != 4 || st.Clients != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestRollOverMovesCurrentViews(t *testing.T) {
	h, r := newTestHub(Options{})
	fc := &fakeConn{}
	cl := newClient(fc)
	r.now = time.Date(2026, 11, 22, 23, 59, 59, 0, time.UTC) // Sunday, end of 2026-W47
	if err := h.attach(context.Background(), cl, Spec{Board: "b", Kind: board.Weekly, Limit: 10}); err != nil {
		t.Fatal(err)
	}
	h.tick(context.Background())
	if got := cl.view.last.Key; got != "2026-W47" {
		t.Fatalf("key %s", got)
	}
	r.mu.Lock()
	r.now = time.Date(2026, 11, 23, 0, 0, 1, 0, time.UTC)
	r.mu.Unlock()
	h.tick(context.Background())
	if got := cl.view.last; got.Key != "2026-W48" || got.Title != "Week 48, 23–29 Nov 2026" {
		t.Fatalf("after midnight: %+v", got)
	}
	if _, watched := h.byKey["lb:{b}:w:2026-W48"]; !watched {
		t.Fatal("the view does not watch the new week's key")
	}
	if _, watched := h.byKey["lb:{b}:w:2026-W47"]; watched {
		t.Fatal("the view still watches last week's key")
	}
	waitFor(t, "two frames", func() bool { return fc.count() == 2 })
	msgs := []string{}
	fc.mu.Lock()
	for _, f := range fc.frames {
		var head struct{ Type, Key string }
		_ = json.Unmarshal(f, &head)
		msgs = append(msgs, head.Type+":"+head.Key)
	}
	fc.mu.Unlock()
	if fmt.Sprint(msgs) != "[snapshot:2026-W47 snapshot:2026-W48]" {
		t.Fatalf("client was sent %v", msgs)
	}
}
