package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
	"podium/rows"
)

// Reader is what the hub needs from the board engine.
type Reader interface {
	Now() time.Time
	Board(ctx context.Context, id string) (board.Board, error)
	ReadViews(ctx context.Context, qs []redisstore.ViewQuery) []redisstore.ViewResult
	RecentOf(ctx context.Context, bs []*board.Board, n int) []redisstore.RecentResult
}

// Options tune the hub; zero values take the defaults.
type Options struct {
	Tick         time.Duration // how often dirty views are re-read (100ms)
	PollInterval time.Duration // re-read everything this often when notifications are off (1s)
	QueueSize    int           // frames a client may have waiting (16)
	WriteTimeout time.Duration // a client that takes longer to accept a frame is dropped (5s)
	PingInterval time.Duration // how often each client is pinged (20s)
	PongTimeout  time.Duration // a client that does not answer a ping in this time is dropped (10s)
	SendBuffer   int           // bytes of kernel send buffer per socket (64 KiB)
	PerAddr      int           // sockets one client address may hold at once (100)
	CloseTimeout time.Duration // how long Run waits at the end for clients' close handshakes (5s)
	// Topology is how often the hub asks a Redis Cluster which primaries
	// serve which slots, to subscribe on new ones (2s).
	Topology time.Duration
	// SelfPublished says the store publishes the keyspace messages itself (the
	// embedded store, which has neither notifications nor CONFIG).
	SelfPublished bool
	DB            int // the Redis database whose keyspace is watched
	Logger        *slog.Logger
}

// Spec identifies a view; clients with equal specs share one read and one
// encoded frame.
type Spec struct {
	Board  string
	Kind   board.Kind
	Key    string // "" follows the current period across roll-overs
	Offset int
	Limit  int
	Member string // around-me when set
	Radius int
	// Teams reads the period's team standing (redisstore/team.go) instead of its
	// members: a page of teams. Around-me has no team form.
	Teams bool
	// Recent asks for the board's recent changes too (the board page). It
	// is not part of the view: clients with and without it share the view.
	Recent bool
	// Live shows a frozen board's live standings: an admin's view, which
	// only the console opens. Other views show what the public sees.
	Live bool
}

// Hub owns the views and their clients.
type Hub struct {
	rdb    redis.UniversalClient
	reader Reader
	opts   Options
	log    *slog.Logger

	mu     sync.Mutex
	views  map[Spec]*view
	feeds  map[string]*feed              // board id -> its recent changes, while a page shows them
	byKey  map[string]map[*view]struct{} // zset key -> views reading it
	dirty  map[string]struct{}
	resync bool // re-read everything and send snapshots (after a reconnect)

	polling  atomic.Bool
	refusing map[string]notifyState // nodes that refuse CONFIG or cannot be asked: polled (under mu)
	lastPoll time.Time
	perAddr  map[string]int       // sockets by client address
	defs     map[string]time.Time // boards whose definition changed, since when
	closing  bool                 // Run is ending: no new sockets
	sockets  sync.WaitGroup       // admitted sockets, until their close handshake is over
	// lastReadWarn limits the warning about failed view reads to one
	// every maxRetry (under mu).
	lastReadWarn, lastFeedWarn time.Time
	stats                      counters
}

// view is one watched window and the clients watching it.
type view struct {
	spec    Spec
	board   board.Board
	period  board.Period
	zkey    string
	clients map[*client]struct{}
	last    *Snapshot
	snapMsg []byte // last snapshot, encoded: what a lagging client gets
	rolled  bool
	// A view whose read failed is read again on its own, after a backoff,
	// and then sends a snapshot; other views go on as before.
	retry backoff
	// held is set while the view's frame waits for its clients to take the
	// previous one (see behind); sentAt is when that one was queued.
	held   bool
	sentAt time.Time
}

// maxRetry bounds a failing read's backoff.
const maxRetry = 5 * time.Second

// backoff spaces the reads of a view or feed whose read failed: a tick
// doubling per failure, up to maxRetry.
type backoff struct {
	failures int
	at       time.Time // not before
}

// failed notes a failure at now.
func (b *backoff) failed(now time.Time, tick time.Duration) {
	b.failures++
	b.at = now.Add(min(tick<<min(b.failures, 10), maxRetry))
}

// waiting tells whether a failed read must not be retried yet.
func (b *backoff) waiting(now time.Time) bool { return b.failures > 0 && now.Before(b.at) }

// New makes a hub; Run starts it.
func New(rdb redis.UniversalClient, reader Reader, opts Options) *Hub {
	if opts.Tick <= 0 {
		opts.Tick = 100 * time.Millisecond
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 16
	}
	// A lagging client's queue is reset to two frames (its view's snapshot
	// and its feed's last list): room for both and one more.
	opts.QueueSize = max(opts.QueueSize, 3)
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 5 * time.Second
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = 20 * time.Second
	}
	if opts.PongTimeout <= 0 {
		opts.PongTimeout = 10 * time.Second
	}
	if opts.SendBuffer <= 0 {
		opts.SendBuffer = 64 << 10
	}
	if opts.PerAddr <= 0 {
		opts.PerAddr = 100
	}
	if opts.CloseTimeout <= 0 {
		opts.CloseTimeout = 5 * time.Second
	}
	if opts.Topology <= 0 {
		opts.Topology = 2 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Hub{
		rdb: rdb, reader: reader, opts: opts, log: opts.Logger,
		views: map[Spec]*view{}, feeds: map[string]*feed{}, byKey: map[string]map[*view]struct{}{}, dirty: map[string]struct{}{},
		refusing: map[string]notifyState{}, perAddr: map[string]int{}, defs: map[string]time.Time{},
	}
}

// Run listens and ticks until ctx ends, then disconnects every client.
func (h *Hub) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); h.listen(ctx) }()
	t := time.NewTicker(h.opts.Tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			h.closeAll()
			return
		case <-t.C:
			h.tick(ctx)
		}
	}
}

// Polling reports whether the hub has fallen back to polling.
func (h *Hub) Polling() bool { return h.polling.Load() }

// tick re-reads the views of dirty keys, new views and rolled-over views,
// in one pipeline, and sends each changed view's frame to its clients.
func (h *Hub) tick(ctx context.Context) {
	defer h.stats.beginTick()()
	notifiedAt, held := h.stats.timings.current.Load(), false
	defer func() {
		if held {
			h.stats.carry(notifiedAt)
		}
	}()
	now, wall := h.reader.Now(), time.Now()
	h.mu.Lock()
	resync := h.resync
	h.resync = false
	poll := h.polling.Load() && now.Sub(h.lastPoll) >= h.opts.PollInterval
	if poll {
		h.lastPoll = now
	}
	if resync || poll { // notifications of definitions may have been missed too
		for _, v := range h.views {
			h.noteDef(v.board.ID)
		}
	}
	h.mu.Unlock()
	h.refreshDefs(ctx)
	h.mu.Lock()
	var work []*view
	for _, v := range h.views {
		if v.spec.Key == "" && v.spec.Kind.Calendar() {
			if cur := v.board.Current(v.spec.Kind, now); cur.Key != v.period.Key {
				h.rekey(v, cur)
			}
		}
		if v.retry.failures > 0 {
			if !v.retry.waiting(wall) { // re-read, whole, when its backoff ends
				work = append(work, v)
			}
			continue
		}
		_, dirty := h.dirty[v.zkey]
		whole := resync || poll || v.rolled || v.last == nil
		if !whole && (dirty || v.held) && h.behind(v, wall) {
			v.held, held = true, true
			h.stats.held.Add(1)
			continue
		}
		if whole || dirty || v.held {
			work = append(work, v)
		}
	}
	clear(h.dirty)
	feeds := h.dirtyFeeds(resync || poll, wall)
	h.mu.Unlock()
	// A node that does not answer must not hold every other view for the
	// client's retries: the tick's reads are bounded.
	rctx, cancel := context.WithTimeout(ctx, max(2*time.Second, 10*h.opts.Tick))
	defer cancel()
	defer h.readFeeds(rctx, feeds)
	if len(work) == 0 {
		return
	}
	qs := make([]redisstore.ViewQuery, len(work))
	for i, v := range work {
		qs[i] = redisstore.ViewQuery{Board: &v.board, Period: v.period, Offset: v.spec.Offset, Limit: v.spec.Limit, Member: v.spec.Member, Radius: v.spec.Radius, Teams: v.spec.Teams, Live: v.spec.Live}
	}
	h.stats.reads.Add(int64(len(qs)))
	h.stats.lastReads.Store(int64(len(qs)))
	results := h.reader.ReadViews(rctx, qs)

	h.mu.Lock()
	defer h.mu.Unlock()
	var failed int
	var firstErr error
	for i, v := range work {
		res := results[i]
		if res.Err != nil && !errors.Is(res.Err, board.ErrNotFound) {
			failed++
			if firstErr == nil {
				firstErr = fmt.Errorf("%s of %q: %w", v.period, v.spec.Board, res.Err)
			}
			v.retry.failed(wall, h.opts.Tick)
			continue
		}
		snap := h.snapshot(v, res)
		h.publish(v, snap, resync || v.rolled || v.last == nil || v.retry.failures > 0)
		v.rolled, v.retry, v.held = false, backoff{}, false
	}
	if failed > 0 && ctx.Err() == nil && wall.Sub(h.lastReadWarn) >= maxRetry {
		h.lastReadWarn = wall
		h.log.Warn("live: views could not be read; each is retried with backoff", slog.Int("views", failed), slog.Any("error", firstErr))
	}
}

// maxHold bounds how long a view's frame may wait for its clients: whatever
// the load, each view sends at least one frame this often.
const maxHold = time.Second

// behind tells whether a view's clients are still writing its previous
// frame: more than a tenth of them, and more than one unless it has only
// one. Its next frame then waits for the next tick, up to maxHold, so an
// overloaded hub lowers each view's frame rate to what its clients take,
// sending fewer and fresher frames, instead of queueing seconds of them.
// A view's clients are all written to from one read, so a view whose
// previous frame has not gone out has nothing to gain from another.
func (h *Hub) behind(v *view, now time.Time) bool {
	if now.Sub(v.sentAt) >= maxHold {
		return false
	}
	busy := 0
	for c := range v.clients {
		if c.busy.Load() {
			busy++
		}
	}
	n := len(v.clients)
	return busy > n/10 && (n == 1 || busy >= 2)
}

// rekey moves a "current period" view to a new period key at roll-over.
func (h *Hub) rekey(v *view, p board.Period) {
	h.unindex(v)
	v.period = p
	v.zkey = redisstore.ZSetKey(v.board.ID, p)
	v.rolled = true
	h.index(v)
}

func (h *Hub) index(v *view) {
	if h.byKey[v.zkey] == nil {
		h.byKey[v.zkey] = map[*view]struct{}{}
	}
	h.byKey[v.zkey][v] = struct{}{}
}

func (h *Hub) unindex(v *view) {
	delete(h.byKey[v.zkey], v)
	if len(h.byKey[v.zkey]) == 0 {
		delete(h.byKey, v.zkey)
	}
}

func (h *Hub) snapshot(v *view, res redisstore.ViewResult) *Snapshot {
	s := &Snapshot{Period: string(v.period.Kind), Key: v.period.Key, Title: v.period.Title(), Rows: []rows.Row{},
		Frozen: rows.FrozenNotice(&v.board, h.reader.Now(), v.spec.Live)}
	if errors.Is(res.Err, board.ErrNotFound) {
		s.Missing = true
		return s
	}
	s.Total, s.Offset = res.Page.Total, res.Page.Offset
	s.Rows = rows.Of(&v.board, res.Page.Entries)
	return s
}

// Frames sent to browsers: {"type":"snapshot",...Snapshot} or
// {"type":"diff",...Delta}. (One struct embedding both would make encoding/json
// drop the fields they share.)
type snapshotFrame struct {
	Type string `json:"type"`
	*Snapshot
}

type diffFrame struct {
	Type string `json:"type"`
	*Delta
}

// publish sends a view's new state: whole when asked (new view, roll-over,
// resync), else as a diff, and nothing when nothing changed. Each frame is
// encoded once and the same bytes go to every client.
func (h *Hub) publish(v *view, snap *Snapshot, whole bool) {
	snapMsg, err := json.Marshal(snapshotFrame{Type: "snapshot", Snapshot: snap})
	if err != nil {
		h.log.Error("live: encode snapshot", slog.Any("error", err))
		return
	}
	msg := snapMsg
	if !whole {
		d, changed := Diff(v.last, snap)
		if !changed {
			return
		}
		if msg, err = json.Marshal(diffFrame{Type: "diff", Delta: &d}); err != nil {
			h.log.Error("live: encode diff", slog.Any("error", err))
			return
		}
	}
	h.stats.framed()
	v.last, v.snapMsg, v.sentAt = snap, snapMsg, time.Now()
	for c := range v.clients {
		h.deliver(c, msg)
	}
}

// attach registers a client for a spec, creating the view if needed; a view
// that already has a snapshot sends it to the newcomer at once.
func (h *Hub) attach(ctx context.Context, c *client, spec Spec) error {
	b, err := h.reader.Board(ctx, spec.Board)
	if err != nil {
		return err
	}
	p := b.Current(spec.Kind, h.reader.Now())
	if spec.Key != "" {
		if p, err = board.ParsePeriod(spec.Kind, spec.Key, b.Location()); err != nil {
			return err
		}
	}
	follow := spec.Recent
	spec.Recent = false
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return errClosing
	}
	v := h.views[spec]
	if v == nil {
		v = &view{spec: spec, board: b, period: p, zkey: redisstore.ZSetKey(b.ID, p), clients: map[*client]struct{}{}}
		h.views[spec] = v
		h.index(v)
	}
	v.clients[c] = struct{}{}
	c.view = v
	h.stats.clients.Add(1)
	if v.snapMsg != nil {
		h.deliver(c, v.snapMsg)
	}
	if follow {
		h.follow(c, b)
	}
	return nil
}

// detach removes a client; a view left without clients is dropped.
func (h *Hub) detach(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := c.view
	if v == nil {
		return
	}
	if _, ok := v.clients[c]; !ok {
		return
	}
	delete(v.clients, c)
	h.unfollow(c)
	h.stats.clients.Add(-1)
	if len(v.clients) == 0 {
		h.unindex(v)
		delete(h.views, v.spec)
	}
}

// closeAll refuses new sockets, tells every client the server is going
// away (1001), and waits, at most CloseTimeout, for their close handshakes:
// the process may exit once Run returns.
func (h *Hub) closeAll() {
	h.mu.Lock()
	h.closing = true
	var all []*client
	for _, v := range h.views {
		for c := range v.clients {
			all = append(all, c)
		}
	}
	h.mu.Unlock()
	for _, c := range all {
		go h.end(c, nil)
	}
	done := make(chan struct{})
	go func() { h.sockets.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(h.opts.CloseTimeout):
		h.log.Warn("live: clients still closing at shutdown", slog.Duration("waited", h.opts.CloseTimeout))
	}
}
