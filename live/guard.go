package live

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// errRevoked ends a socket whose guard says its request may no longer read
// the board.
var errRevoked = errors.New("access revoked")

// guardWorkers is how many guards a round asks at once: most answer from
// caches, and those that read Redis should not wait for one another.
const guardWorkers = 8

// startGuard has the hub ask guard every GuardInterval whether the client
// may still read its board (checkGuards).
func (h *Hub) startGuard(c *client, guard func(context.Context) error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.guard = guard
	h.guarded[c] = struct{}{}
}

// guardRounds asks every guarded client's guard again each GuardInterval,
// until ctx ends. One round for them all, rather than a timer and a
// goroutine each: the guards of a round mostly ask the same cached
// definitions, and a definition whose cache has expired is read once, not
// by every socket of its board at once.
func (h *Hub) guardRounds(ctx context.Context) {
	t := time.NewTicker(h.opts.GuardInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			h.checkGuards(ctx)
		}
	}
}

// checkGuards asks each guarded client's guard whether it may still read
// its board, and ends with 1008 those that may not. A guard that cannot
// answer (the store is away) keeps the client: it returns nil.
func (h *Hub) checkGuards(ctx context.Context) {
	h.mu.Lock()
	cs := make([]*client, 0, len(h.guarded))
	for c := range h.guarded {
		cs = append(cs, c)
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, h.opts.GuardInterval)
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(guardWorkers, len(cs)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(cs); i = int(next.Add(1)) - 1 {
				if err := cs[i].guard(ctx); err != nil {
					go h.end(cs[i], fmt.Errorf("%w: %w", errRevoked, err)) // the close handshake may take a while
				}
			}
		})
	}
	wg.Wait()
}
