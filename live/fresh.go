package live

import (
	"sync"
	"time"
)

// watch is what the hub knows of its subscriptions, for the read cache:
// whether each watched node is subscribed, and when it was last heard
// from (a notification, a pong, the subscription itself).
type watch struct {
	mu    sync.Mutex
	nodes map[string]*watched
}

type watched struct {
	subscribed bool
	on         bool // the node is known to send the notifications the hub needs
	heard      time.Time
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

// heard: node said something; subscribed when it confirmed a subscription.
func (w *watch) heard(node string, subscribed bool) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := w.nodes[node]; n != nil {
		n.heard = now
		n.subscribed = n.subscribed || subscribed
	}
}

// all: every watched node is subscribed and was heard from within d.
func (w *watch) all(d time.Duration) bool {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range w.nodes {
		if !n.subscribed || !n.on || now.Sub(n.heard) > d {
			return false
		}
	}
	return len(w.nodes) > 0
}

// freshFor is how lately every subscription must have been heard from for
// the cache to trust that no notification is missing: a silent one is
// pinged every tick, so a few ticks allow for a busy machine.
const freshFor = 2

// Fresh reports whether the hub can vouch for keyspace notifications now:
// every watched node subscribed, known to send them (checked, or turned
// on, after each subscription) and heard from within two ticks, and none
// polled for want of CONFIG. The read cache serves an answer past its
// first tick only while it is.
func (h *Hub) Fresh() bool {
	return !h.polling.Load() && h.watch.all(freshFor*h.opts.Tick)
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
