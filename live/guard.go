package live

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// errRevoked ends a socket whose guard says its request may no longer read
// the board.
var errRevoked = errors.New("access revoked")

// startGuard asks guard every GuardInterval whether the client may still
// read its board, and ends it with 1008 once it may not. A guard that
// cannot answer (the store is away) keeps the client: it returns nil.
func (h *Hub) startGuard(c *client, guard func(context.Context) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.guard = time.AfterFunc(h.opts.GuardInterval, func() {
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.GuardInterval)
		err := guard(ctx)
		cancel()
		if err != nil {
			h.end(c, fmt.Errorf("%w: %w", errRevoked, err))
			return
		}
		c.mu.Lock()
		if !c.ended {
			c.guard.Reset(h.opts.GuardInterval)
		}
		c.mu.Unlock()
	})
}
