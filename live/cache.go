package live

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"podium/board"
	"podium/redisstore"
)

// Hot reads. The pages, the API, the widget and around-me read the open
// periods of a board far more often than the board changes; a Cache keeps
// their answers in process and serves them again until the board changes,
// which the hub learns from the keyspace notifications it already receives.
// A read then costs Redis nothing, and N replicas do not multiply Redis'
// load by N.
//
// How stale an answer may be: at most one tick (Options.Tick, 100ms). An
// answer is served again while no notification of its board has arrived
// since it was read. A change to a quiet board is read at the next request;
// an answer read while its board is busy (a notification of it within the
// tick before) is served whatever arrived while younger than a tick, so a
// board written thousands of times a second costs each replica one read of
// each distinct query per tick, not one per request. (Busy is judged when
// the answer is read, not when it is served: one write notifies of several
// keys at once, and would make a quiet board look busy.) While the hub
// cannot vouch for the notifications (not subscribed, a node refusing
// CONFIG, a subscription that has not answered a ping sent within the last
// tick: see Hub.Fresh), the tick is the only rule. Reads of closed periods,
// of a frozen board's live standings and of anything but pages, around-me
// and a member's standings go to the store as before.
//
// A write made through this process (the API, the console, a form) drops
// its board's answers at once (Cache.Wrote, the store's write hook), so
// whoever wrote reads their write from the replica that took it; the
// console reads around the cache altogether.

// CachedReader is what the cache reads on a miss: the store.
type CachedReader interface {
	Now() time.Time
	Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)
	Around(ctx context.Context, b *board.Board, p board.Period, member string, k int) (board.Page, int, error)
	Member(ctx context.Context, b *board.Board, member string) ([]board.Standing, error)
	ReadViews(ctx context.Context, qs []redisstore.ViewQuery) []redisstore.ViewResult
	Race(ctx context.Context, b *board.Board, p board.Period) ([]board.RacePoint, error)
}

// Cache is a read-through cache of a board's open periods in front of a
// CachedReader. The zero value is not usable: see NewCache.
type Cache struct {
	r     CachedReader
	tick  time.Duration
	fresh func() bool // notifications can be trusted (Hub.Fresh)
	max   int         // entries
	// maxRows bounds the rows of every entry together (a page of 1,000
	// weighs 1,001, a member's standing one per period and one).
	maxRows int

	mu      sync.Mutex
	boards  map[string]*boardState
	known   int    // len(boards) after the last forget
	epoch   uint64 // every board: bumped when notifications may have been missed
	entries map[cacheKey]*cacheEntry
	rows    int // of the entries kept (cacheEntry.rows)

	hits, misses atomic.Uint64
}

// Bounds of a cache: entries, and rows in all (about 200 bytes each, so
// some 40 MiB at most), whatever the pages asked for.
const (
	DefaultCacheEntries = 4096
	DefaultCacheRows    = 200_000
)

// NewCache reads through r. fresh says whether notifications are being
// received (Hub.Fresh); tick is the staleness bound (the hub's tick).
func NewCache(r CachedReader, tick time.Duration, fresh func() bool) *Cache {
	if tick <= 0 {
		tick = 100 * time.Millisecond
	}
	return &Cache{r: r, tick: tick, fresh: fresh, max: DefaultCacheEntries, maxRows: DefaultCacheRows,
		boards: map[string]*boardState{}, entries: map[cacheKey]*cacheEntry{}}
}

// boardState is what a cache knows of one board (under Cache.mu).
type boardState struct {
	gen     uint64    // changes seen
	wrote   time.Time // this process's last write to it
	changed time.Time // its last notification
	held    int       // its entries in Cache.entries
}

// board is id's state, made on first use. Under c.mu.
func (c *Cache) board(id string, now time.Time) *boardState {
	st := c.boards[id]
	if st == nil {
		if len(c.boards) >= 2*c.known+1024 {
			c.forget(now)
		}
		st = &boardState{}
		c.boards[id] = st
	}
	return st
}

// forget drops the state of every board the cache holds no answer of and
// that has not changed for a tick: no answer depends on it (an answer read
// later starts from what it reads), and boards come and go for as long as
// a replica runs (made and deleted, an outside writer's key per match),
// every one of them notified of. It runs when the boards known have
// doubled since it last ran, so it costs each board O(1). Under c.mu.
func (c *Cache) forget(now time.Time) {
	for id, st := range c.boards {
		if st.held == 0 && now.Sub(st.changed) >= c.tick {
			delete(c.boards, id)
		}
	}
	c.known = len(c.boards)
}

type cacheKey struct {
	board   string
	version int64
	frozen  int64 // µs of the freeze the public sees; 0: none
	kind    byte  // 'p' page, 'a' around, 'm' member, 'r' race
	period  string
	offset  int
	limit   int
	member  string
}

type cacheEntry struct {
	ready chan struct{} // closed once the read below is done
	gen   uint64        // the board's changes when the read began
	epoch uint64
	at    time.Time // when the read began: the answer is at least this fresh
	// busy: its board had a notification within a tick before the read
	// began, so notifications that follow are served young (servable).
	busy bool
	err  error // the read's error: kept when it is an answer (ErrNotFound)
	kept bool
	// served counts the hits it answered (under Cache.mu), for evict.
	served  uint64
	rows    int  // its weight in Cache.rows: its rows, and one
	counted bool // in Cache.rows (under Cache.mu)

	page      board.Page
	pos       int
	standings []board.Standing
	race      []board.RacePoint
}

// Stats are the cache's counts since the start.
type CacheStats struct {
	Hits, Misses uint64
	Entries      int
}

// Stats reads the counts.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	n := len(c.entries)
	c.mu.Unlock()
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Entries: n}
}

// Changed notes that a key of board id changed: answers read before it
// are served for at most one tick more.
func (c *Cache) Changed(id string) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.board(id, now)
	st.gen++
	st.changed = now
}

// Wrote notes that this process wrote keys (a redisstore write hook):
// answers read before are not served again, so whoever wrote through this
// replica reads their write at once (another replica within a tick).
func (c *Cache) Wrote(_ context.Context, keys ...string) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		if id, ok := readKeyOf(k); ok {
			st := c.board(id, now)
			st.gen++
			st.wrote = now
		}
	}
}

// Flush notes that notifications may have been missed (a new
// subscription, the cluster's slots moved): every answer is served for at
// most one tick more.
func (c *Cache) Flush() {
	c.mu.Lock()
	c.epoch++
	c.mu.Unlock()
}

// get is k's entry: the cached one while it is fresh enough, else a new
// read by fill, shared with every caller that asks for k meanwhile. A read
// that fails is not kept (but for a member who is not on the board: that
// is an answer like any other); whoever made it gets its error, and those
// who waited for it read on their own.
func (c *Cache) get(ctx context.Context, id string, k cacheKey, fill func(*cacheEntry) error) (*cacheEntry, error) {
	if redisstore.ReadsLive(ctx) { // a frozen board's live standings: never kept
		e := &cacheEntry{}
		return e, fill(e)
	}
	e, mine := c.claim(id, k)
	if !mine {
		return c.wait(ctx, e)
	}
	c.finish(k, e, fill(e))
	return e, e.err
}

// claim is k's entry to serve (mine false: wait for it), or a new one the
// caller is to fill and finish (mine true).
func (c *Cache) claim(id string, k cacheKey) (e *cacheEntry, mine bool) {
	fresh := c.fresh()
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if e = c.entries[k]; e != nil {
		select {
		case <-e.ready:
			if (e.err != nil && !e.kept) || !c.servable(e, id, fresh, now) {
				e = nil
			}
		default: // a read in flight: wait for it while it is young enough
			if now.Sub(e.at) >= c.tick || e.at.Before(c.boards[id].wrote) {
				e = nil
			}
		}
	}
	if e != nil {
		e.served++
		return e, false
	}
	c.drop(k) // the answer it replaces, and its rows
	if len(c.entries) >= c.max {
		c.evict(fresh, now)
	}
	st := c.board(id, now)
	e = &cacheEntry{ready: make(chan struct{}), gen: st.gen, epoch: c.epoch, at: now, busy: !st.changed.IsZero() && now.Sub(st.changed) < c.tick}
	c.entries[k] = e
	st.held++
	c.misses.Add(1)
	return e, true
}

// wait is e's answer once its read is done: errFailed if it failed.
func (c *Cache) wait(ctx context.Context, e *cacheEntry) (*cacheEntry, error) {
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if e.err != nil && !e.kept {
		return nil, errFailed
	}
	c.hits.Add(1)
	return e, e.err
}

// finish ends the read of a claimed entry with its error: kept, or
// dropped when it failed.
func (c *Cache) finish(k cacheKey, e *cacheEntry, err error) {
	e.err = err
	e.kept = err == nil || errors.Is(err, board.ErrNotFound)
	e.rows = 1 + len(e.page.Entries) + len(e.standings) + len(e.race)
	close(e.ready)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[k] != e {
		return
	}
	if !e.kept {
		c.drop(k)
		return
	}
	c.rows += e.rows
	e.counted = true
	fresh, now := c.fresh(), time.Now()
	for c.rows > c.maxRows && c.evict(fresh, now) {
	}
}

// servable: e (read) may answer now. Under c.mu.
func (c *Cache) servable(e *cacheEntry, id string, fresh bool, now time.Time) bool {
	st := c.boards[id] // there while it holds an answer (boardState.held)
	if st == nil || e.at.Before(st.wrote) {
		return false // read before this process's own write
	}
	young := now.Sub(e.at) < c.tick
	if !fresh || e.epoch != c.epoch {
		return young // nothing to go by but the tick
	}
	if e.gen == st.gen {
		return true // nothing changed since it was read
	}
	return young && e.busy // a busy board's answers are read once a tick
}

// evictSample is how many entries evict looks at to make room.
const evictSample = 32

// evict makes room for one entry, and says whether it did: of a few entries (Go's map order is
// random), one that may no longer be served, else the one served least
// (an answer read once, a random member's standing, goes before a page
// everyone reads). Under c.mu.
func (c *Cache) evict(fresh bool, now time.Time) bool {
	var victim cacheKey
	found, least := false, uint64(0)
	seen := 0
	for k, e := range c.entries {
		if seen++; seen > evictSample {
			break
		}
		select {
		case <-e.ready:
		default:
			continue // a read in flight
		}
		if !e.kept || !c.servable(e, k.board, fresh, now) {
			victim, found = k, true
			break
		}
		if !found || e.served < least {
			victim, found, least = k, true, e.served
		}
	}
	if found {
		c.drop(victim)
	}
	return found
}

// drop forgets k's entry. Under c.mu.
func (c *Cache) drop(k cacheKey) {
	if e := c.entries[k]; e != nil {
		if e.counted {
			c.rows -= e.rows
		}
		delete(c.entries, k)
		if st := c.boards[k.board]; st != nil {
			st.held--
		}
	}
}

// errFailed: a shared read failed; the caller reads on its own.
var errFailed = cacheError("live: cached read failed")

type cacheError string

func (e cacheError) Error() string { return string(e) }

// String says the cache's state, for the log and metrics.
func (s CacheStats) String() string {
	rate := 0.0
	if s.Hits+s.Misses > 0 {
		rate = float64(s.Hits) / float64(s.Hits+s.Misses)
	}
	return "hits " + strconv.FormatUint(s.Hits, 10) + ", misses " + strconv.FormatUint(s.Misses, 10) + ", hit rate " + strconv.FormatFloat(rate, 'f', 3, 64)
}
