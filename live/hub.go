package live

import (
	"context"
	"crypto/rand"
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
	// GuardInterval is how often a socket's guard asks again whether its
	// request may still read the board (500ms): a revoked share link ends
	// its sockets within about that.
	GuardInterval time.Duration
	// Topology is how often the hub asks a Redis Cluster which primaries
	// serve which slots, to subscribe on new ones (2s).
	Topology time.Duration
	// SelfPublished says the store publishes the keyspace messages itself (the
	// embedded store, which has neither notifications nor CONFIG).
	SelfPublished bool
	DB            int // the Redis database whose keyspace is watched
	// Masker names members in shared views of boards that hide names
	// (rows.Lens); nil: a key of this process.
	Masker *rows.Masker
	Logger *slog.Logger
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
	// Shared views show what the board's privacy mode leaves to the shared
	// surfaces (rows.Lens): only the top, names hidden. Only readers who
	// see everything (a role on the board, the console) open others. A
	// masked view and a full one are two views: they never share a frame.
	Shared bool
	// Own: Member is the reader's own (a personal link's): its row shows
	// wherever it stands, with its own name, in a shared view.
	Own bool
	// Members, when set, is a list's view (the compare and friends pages):
	// these members (ids joined by "\n", which no id holds; at most
	// MaxListMembers) ranked among themselves, each row's one field its
	// rank on the board. A shared list view shows nothing on a board whose
	// privacy mode limits what others see.
	Members string
	// Segment, when set, makes the page one of the segment's standing
	// (redisstore.SegmentPage): ranks within it, each row's one more field
	// its rank on the whole period. Only pages have a segment form.
	Segment board.Segment
}

// MaxListMembers bounds a list's live view: each is a standings read of
// its members on every change of its board.
const MaxListMembers = 100

// Hub owns the views and their clients.
type Hub struct {
	rdb    redis.UniversalClient
	reader Reader
	opts   Options
	log    *slog.Logger

	mu     sync.Mutex
	views  map[Spec]*view
	feeds  map[feedKey]*feed             // a board's recent changes, while a page shows them
	byKey  map[string]map[*view]struct{} // zset key -> views reading it
	dirty  map[string]struct{}
	resync bool // re-read everything and send snapshots (after a reconnect)

	polling  atomic.Bool
	refusing map[string]notifyState // nodes that refuse CONFIG or cannot be asked: polled (under mu)
	lastPoll time.Time
	perAddr  map[string]int       // sockets by client address
	ready    []*client            // socket clients deliver found idle, for send to write (under mu)
	guarded  map[*client]struct{} // clients whose guard checkGuards asks
	defs     map[string]time.Time // boards whose definition changed, since when
	closing  bool                 // Run is ending: no new sockets
	sockets  sync.WaitGroup       // admitted sockets, until their close handshake is over
	// lastReadWarn limits the warning about failed view reads to one
	// every maxRetry (under mu).
	lastReadWarn, lastFeedWarn time.Time
	stats                      counters

	watch watch                 // the subscriptions, for Fresh
	cache atomic.Pointer[Cache] // the read cache, if any (NewCache)
}

// view is one watched window and the clients watching it.
type view struct {
	spec    Spec
	board   board.Board
	period  board.Period
	zkey    string
	gkey    string // a segment's standing ("" none): its view reads it too
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
	if opts.GuardInterval <= 0 {
		opts.GuardInterval = 500 * time.Millisecond
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
	if opts.Masker == nil {
		key := make([]byte, 32)
		_, _ = rand.Read(key) // never fails (crypto/rand)
		opts.Masker = rows.NewMasker(key)
	}
	return &Hub{
		rdb: rdb, reader: reader, opts: opts, log: opts.Logger,
		views: map[Spec]*view{}, feeds: map[feedKey]*feed{}, byKey: map[string]map[*view]struct{}{}, dirty: map[string]struct{}{},
		refusing: map[string]notifyState{}, perAddr: map[string]int{}, defs: map[string]time.Time{}, guarded: map[*client]struct{}{},
	}
}

// Run listens and ticks until ctx ends, then disconnects every client.
func (h *Hub) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { h.listen(ctx) })
	wg.Go(func() { h.guardRounds(ctx) })
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
	notifiedAt := h.stats.timings.current.Load()
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
	work, held := h.due(now, wall, resync || poll)
	if held {
		defer h.stats.carry(notifiedAt)
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
		qs[i] = v.query()
	}
	h.stats.reads.Add(int64(len(qs)))
	h.stats.lastReads.Store(int64(len(qs)))
	results := h.reader.ReadViews(rctx, qs)

	h.mu.Lock()
	h.publishAll(ctx, work, results, resync, wall)
	h.mu.Unlock()
	h.send()
}

// due lists the views to read this tick (under h.mu): those whose keys
// changed, every one when whole (after a resubscription, or a poll), and
// those whose backoff ended. A changed view whose clients are behind is
// held for a later tick (held reports one was).
func (h *Hub) due(now, wall time.Time, whole bool) (work []*view, held bool) {
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
		if _, moved := h.dirty[v.gkey]; moved && v.gkey != "" {
			dirty = true
		}
		all := whole || v.rolled || v.last == nil
		if !all && (dirty || v.held) && h.behind(v, wall) {
			v.held, held = true, true
			h.stats.held.Add(1)
			continue
		}
		if all || dirty || v.held {
			work = append(work, v)
		}
	}
	return work, held
}

// publishAll sends what each view read (under h.mu); a view that could not
// be read backs off, and the failures are logged at most once a maxRetry.
func (h *Hub) publishAll(ctx context.Context, work []*view, results []redisstore.ViewResult, resync bool, wall time.Time) {
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
