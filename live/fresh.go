package live

import (
	"sync"
	"time"
)

// watch is what the hub knows of its subscriptions, for the read cache:
// whether each watched node is subscribed, and until when it is known to
// have sent everything (vouched).
type watch struct {
	mu    sync.Mutex
	nodes map[string]*watched
}

type watched struct {
	subscribed bool
	on         bool // the node is known to send the notifications the hub needs
	// vouched: every notification the node sent before this instant has
	// arrived. A node's replies come in order, so a notification or the
	// subscription vouches for the moment it arrived, and a pong for the
	// moment its ping was sent (not when the pong came: a connection that
	// went silent in between may have lost what was sent meanwhile).
	vouched time.Time
}

func (w *watch) add(node string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.nodes == nil {
		w.nodes = map[string]*watched{}
	}
	w.nodes[node] = &watched{}
}

func (w *watch) remove(node string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.nodes, node)
}

// lost: node's subscription ended; until it is back nothing it would have
// said is known.
func (w *watch) lost(node string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := w.nodes[node]; n != nil {
		n.subscribed, n.on = false, false // a restarted node may have lost them: checked again
	}
}

// notifying: whether node is known to send keyspace notifications (it
// may have none until keepNotifications has turned them on).
func (w *watch) notifying(node string, on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := w.nodes[node]; n != nil {
		n.on = on
	}
}

// heard: a notification, or the subscription (subscribed), arrived from
// node: it vouches for everything sent before now.
func (w *watch) heard(node string, subscribed bool) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := w.nodes[node]; n != nil {
		n.vouched = now
		n.subscribed = n.subscribed || subscribed
	}
}

// ponged: node answered a ping sent at sent.
func (w *watch) ponged(node string, sent time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := w.nodes[node]; n != nil && sent.After(n.vouched) {
		n.vouched = sent
	}
}

// all: every watched node is subscribed and vouched for all but the last d.
func (w *watch) all(d time.Duration) bool {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range w.nodes {
		if !n.subscribed || !n.on || now.Sub(n.vouched) >= d {
			return false
		}
	}
	return len(w.nodes) > 0
}

// pingsPerTick is how often a silent subscription is pinged in a tick:
// Fresh needs a pong for a ping sent within the tick, and the margin
// allows for a round trip and a busy machine.
const pingsPerTick = 4

// Fresh reports whether the hub can vouch for keyspace notifications now:
// every watched node subscribed, known to send them (checked, or turned
// on, after each subscription) and known to have delivered everything it
// sent until a tick ago, and none polled for want of CONFIG. The read
// cache serves an answer past its first tick only while it is: a write
// whose notification is lost (a connection gone silent, half-open) is
// then never more than a tick behind.
func (h *Hub) Fresh() bool {
	return !h.polling.Load() && h.watch.all(h.opts.Tick)
}

// NewCache is a read cache in front of r that this hub keeps fresh: every
// notification of a board's key marks its answers changed, and every new
// subscription (notifications may have been missed) all of them. Give
// the store's writes to Cache.Wrote as well (redisstore.Store.OnWrite).
func (h *Hub) NewCache(r CachedReader) *Cache {
	c := NewCache(r, h.opts.Tick, h.Fresh)
	h.cache.Store(c)
	return c
}
