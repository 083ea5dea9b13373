package access

import (
	"sync"
	"time"
)

// shortCache keeps what a Redis read established (a verified API key or
// share link, a board's embed secret) for ttl, so a request that repeats
// one costs no round trip, and a change made on another replica (a
// revocation, a new secret) reaches this one within ttl.
type shortCache[V any] struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]cached[V]
}

type cached[V any] struct {
	v  V
	at time.Time
}

// maxCached bounds a cache: past it, it starts again empty.
const maxCached = 10_000

func newShortCache[V any](ttl time.Duration) *shortCache[V] {
	return &shortCache[V]{ttl: ttl, m: map[string]cached[V]{}}
}

// get is what was put under key less than ttl before now.
func (c *shortCache[V]) get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if !ok || now.Sub(e.at) >= c.ttl || now.Before(e.at) {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (c *shortCache[V]) put(key string, v V, now time.Time) {
	c.mu.Lock()
	if len(c.m) >= maxCached {
		clear(c.m)
	}
	c.m[key] = cached[V]{v: v, at: now}
	c.mu.Unlock()
}

func (c *shortCache[V]) forget(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}
