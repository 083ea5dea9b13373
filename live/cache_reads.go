package live

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"podium/board"
	"podium/redisstore"
)

// The reads the cache answers: the store's, one method each, each a key
// (cacheKey) and a fill.

// open tells whether p is an open period of b at now, the only ones
// cached: a closed period may be read from the archive, which sends no
// notifications.
func open(b *board.Board, p board.Period, now time.Time) bool {
	return p.Key == b.Current(p.Kind, now).Key && !p.Ended(now)
}

func keyOf(b *board.Board, now time.Time, kind byte) cacheKey {
	k := cacheKey{board: b.ID, version: b.Version, kind: kind}
	if since, ok := b.FrozenSince(now); ok {
		k.frozen = since.UnixMicro()
	}
	return k
}

// Page is the store's Page, from the cache when it may be.
func (c *Cache) Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error) {
	now := c.r.Now()
	if !open(b, p, now) {
		return c.r.Page(ctx, b, p, offset, limit)
	}
	k := keyOf(b, now, 'p')
	k.period, k.offset, k.limit = p.String(), offset, limit
	e, err := c.get(ctx, b.ID, k, func(e *cacheEntry) (err error) {
		e.page, err = c.r.Page(ctx, b, p, offset, limit)
		e.page.Memo = new(board.Memo)
		return err
	})
	if errors.Is(err, errFailed) {
		return c.r.Page(ctx, b, p, offset, limit)
	}
	if err != nil {
		return board.Page{}, err
	}
	return copyPage(e.page), nil
}

// Around is the store's Around, from the cache when it may be.
func (c *Cache) Around(ctx context.Context, b *board.Board, p board.Period, member string, k int) (board.Page, int, error) {
	now := c.r.Now()
	if !open(b, p, now) {
		return c.r.Around(ctx, b, p, member, k)
	}
	key := keyOf(b, now, 'a')
	key.period, key.member, key.limit = p.String(), member, k
	e, err := c.get(ctx, b.ID, key, func(e *cacheEntry) (err error) {
		e.page, e.pos, err = c.r.Around(ctx, b, p, member, k)
		e.page.Memo = new(board.Memo)
		return err
	})
	if errors.Is(err, errFailed) {
		return c.r.Around(ctx, b, p, member, k)
	}
	if err != nil {
		return board.Page{}, 0, err
	}
	return copyPage(e.page), e.pos, nil
}

// Member is the store's Member (a member's standing in the current period
// of every kind), from the cache when it may be.
func (c *Cache) Member(ctx context.Context, b *board.Board, member string) ([]board.Standing, error) {
	now := c.r.Now()
	key := keyOf(b, now, 'm')
	key.member = member
	var periods strings.Builder
	for _, kind := range b.Periods {
		periods.WriteString(b.Current(kind, now).String())
		periods.WriteByte(' ')
	}
	key.period = periods.String() // a roll-over makes a new key
	e, err := c.get(ctx, b.ID, key, func(e *cacheEntry) (err error) {
		e.standings, err = c.r.Member(ctx, b, member)
		return err
	})
	if errors.Is(err, errFailed) {
		return c.r.Member(ctx, b, member)
	}
	if err != nil {
		return nil, err
	}
	return slices.Clone(e.standings), nil
}

// Race is the store's Race, from the cache when it may be: every open
// race page fetches its chart again on each live frame, all at once, and
// a race is a list of up to 2,000 points.
func (c *Cache) Race(ctx context.Context, b *board.Board, p board.Period) ([]board.RacePoint, error) {
	now := c.r.Now()
	if !open(b, p, now) {
		return c.r.Race(ctx, b, p)
	}
	k := keyOf(b, now, 'r')
	k.period = p.String()
	e, err := c.get(ctx, b.ID, k, func(e *cacheEntry) (err error) {
		e.race, err = c.r.Race(ctx, b, p)
		return err
	})
	if errors.Is(err, errFailed) {
		return c.r.Race(ctx, b, p)
	}
	if err != nil {
		return nil, err
	}
	return slices.Clone(e.race), nil // the caller renames its points (rows.Lens.Race)
}

// ReadViews is the store's ReadViews (many pages in one round trip: the
// home page's tops), with each page of an open period from the cache when
// it may be; the rest are read together, as before.
func (c *Cache) ReadViews(ctx context.Context, qs []redisstore.ViewQuery) []redisstore.ViewResult {
	out := make([]redisstore.ViewResult, len(qs))
	type pending struct {
		i int
		k cacheKey
		e *cacheEntry
	}
	var waits, fills []pending
	var reads []redisstore.ViewQuery
	var direct []int // queries the cache does not keep
	now := c.r.Now()
	for i, q := range qs {
		if q.Member != "" || len(q.Members) > 0 || q.Teams || !q.Segment.IsZero() || q.Live || redisstore.ReadsLive(ctx) || !open(q.Board, q.Period, now) {
			direct = append(direct, i)
			reads = append(reads, q)
			continue
		}
		k := keyOf(q.Board, now, 'p')
		k.period, k.offset, k.limit = q.Period.String(), q.Offset, q.Limit
		e, mine := c.claim(q.Board.ID, k)
		if mine {
			fills = append(fills, pending{i, k, e})
			reads = append(reads, q)
		} else {
			waits = append(waits, pending{i, k, e})
		}
	}
	if len(reads) > 0 {
		res := c.r.ReadViews(ctx, reads)
		for j, i := range direct {
			out[i] = res[j]
		}
		for j, f := range fills {
			r := res[len(direct)+j]
			f.e.page = r.Page
			f.e.page.Memo = new(board.Memo)
			c.finish(f.k, f.e, r.Err)
			out[f.i] = redisstore.ViewResult{Page: copyPage(r.Page), Err: r.Err}
		}
	}
	for _, w := range waits {
		e, err := c.wait(ctx, w.e)
		if errors.Is(err, errFailed) { // the read it waited for failed: its own
			out[w.i] = c.r.ReadViews(ctx, []redisstore.ViewQuery{qs[w.i]})[0]
			continue
		}
		out[w.i] = redisstore.ViewResult{Err: err}
		if e != nil {
			out[w.i].Page = copyPage(e.page)
		}
	}
	return out
}

// copyPage is p with entries of its own: callers mask and reorder rows
// (rows.Lens) and must not change what other readers are served.
func copyPage(p board.Page) board.Page {
	p.Entries = slices.Clone(p.Entries)
	for i := range p.Entries {
		p.Entries[i].Fields = slices.Clone(p.Entries[i].Fields)
	}
	return p
}

// Now is the clock of the reader behind the cache.
func (c *Cache) Now() time.Time { return c.r.Now() }
