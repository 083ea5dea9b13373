package redisstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"podium/board"
)

// DefaultDefinitionTTL is how long a definition read from Redis serves reads
// (pages, the API) before it is read again: a change made by another replica
// shows within it. Writes do not depend on it: they send the cached version
// to their script, which refuses a stale one, and the writer reads again.
const DefaultDefinitionTTL = time.Second

// WithDefinitionTTL sets how long cached definitions serve reads; 0 reads
// Redis every time.
func WithDefinitionTTL(d time.Duration) Option { return func(s *Store) { s.defTTL = d } }

// defCache keeps board definitions in process, so a write costs one round
// trip (its script) and a page does not re-read what it read a moment ago.
type defCache struct {
	mu   sync.Mutex
	defs map[string]cachedDef
}

type cachedDef struct {
	b    board.Board
	read time.Time
}

func (c *defCache) get(id string) (cachedDef, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.defs[id]
	return d, ok
}

// put keeps b unless a newer version is already cached (a slow reader must
// not replace what a later write stored).
func (c *defCache) put(b board.Board, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.defs == nil {
		c.defs = map[string]cachedDef{}
	}
	if old, ok := c.defs[b.ID]; ok && old.b.Version > b.Version {
		return
	}
	c.defs[b.ID] = cachedDef{b: b, read: now}
}

func (c *defCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.defs, id)
}

// Board reads one board's definition; ErrNotFound if there is none. It is
// served from the process's cache while younger than the definition TTL.
func (s catalog) Board(ctx context.Context, id string) (board.Board, error) {
	if d, ok := s.defs.get(id); ok && time.Since(d.read) < s.defTTL {
		return d.b, nil
	}
	return s.readBoard(ctx, id)
}

// boardForWrite is the definition a write starts from: the cached one,
// whatever its age, since the write's script checks its version.
func (s catalog) boardForWrite(ctx context.Context, id string) (board.Board, error) {
	if d, ok := s.defs.get(id); ok {
		return d.b, nil
	}
	return s.readBoard(ctx, id)
}

// readBoard reads a definition from Redis and caches it.
func (s catalog) readBoard(ctx context.Context, id string) (board.Board, error) {
	m, err := s.rdb.HGetAll(ctx, defKey(id)).Result()
	if err != nil {
		return board.Board{}, fmt.Errorf("board: read %q: %w", id, err)
	}
	if len(m) == 0 {
		s.defs.drop(id)
		return board.Board{}, fmt.Errorf("board %q: %w", id, board.ErrNotFound)
	}
	b, err := parseDef(m)
	if err != nil {
		return board.Board{}, fmt.Errorf("board: read %q: %w", id, err)
	}
	s.defs.put(b, time.Now())
	return b, nil
}

// ReadBoard reads a board's definition from Redis, never from the cache.
func (s catalog) ReadBoard(ctx context.Context, id string) (board.Board, error) {
	return s.readBoard(ctx, id)
}

// Reread reads a definition from Redis, past the cache (and caches it): a
// caller that must take as long as a miss takes (web/request's Gate, whose
// refusals must not be told from unknown boards by their speed).
func (s catalog) Reread(ctx context.Context, id string) (board.Board, error) {
	return s.readBoard(ctx, id)
}

// BoardFrom is Board, and whether the read went to Redis (false: the
// cache answered).
func (s catalog) BoardFrom(ctx context.Context, id string) (board.Board, bool, error) {
	if d, ok := s.defs.get(id); ok && time.Since(d.read) < s.defTTL {
		return d.b, false, nil
	}
	b, err := s.readBoard(ctx, id)
	return b, true, err
}
