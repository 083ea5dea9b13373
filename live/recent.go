package live

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"time"

	"podium/board"
	"podium/rows"
)

// RecentSize is how many recent changes a board page shows, and live
// frames carry.
const RecentSize = 8

// feed is a board's recent changes, for the board pages that show them
// (Spec.Recent): read once per tick when the board's list changes, encoded
// once, and sent to every such page whatever its view. Each change carries
// what it did in every period it touched; a page shows its own period's.
type feed struct {
	board   board.Board
	shared  bool // for shared views: none on a board with a privacy mode
	clients map[*client]struct{}
	last    []byte // the last frame sent: what a newcomer gets
	dirty   bool
	retry   backoff // a feed whose read failed waits, like a view

}

// feedKey names a feed: a board's, for shared views or for the others.
type feedKey struct {
	board  string
	shared bool
}

// recentFrame is {"type":"recent","items":[...]}.
type recentFrame struct {
	Type  string          `json:"type"`
	Items []rows.Activity `json:"items"`
}

// follow adds a client to its board's feed (under mu).
func (h *Hub) follow(c *client, b board.Board, shared bool) {
	k := feedKey{b.ID, shared}
	f := h.feeds[k]
	if f == nil {
		f = &feed{board: b, shared: shared, clients: map[*client]struct{}{}, dirty: true}
		h.feeds[k] = f
	}
	f.clients[c] = struct{}{}
	c.feed = f
	if f.last != nil {
		h.deliver(c, f.last)
	}
}

// unfollow removes a client from its feed, and a feed left without clients
// (under mu).
func (h *Hub) unfollow(c *client) {
	f := c.feed
	if f == nil {
		return
	}
	delete(f.clients, c)
	if k := (feedKey{f.board.ID, f.shared}); len(f.clients) == 0 && h.feeds[k] == f {
		delete(h.feeds, k)
	}
}

// markRecent notes a change of board id's recent list or names (under mu).
func (h *Hub) markRecent(id string) {
	for _, shared := range []bool{false, true} {
		if f := h.feeds[feedKey{id, shared}]; f != nil {
			f.dirty = true
		}
	}
}

// dirtyFeeds takes the feeds to read this tick; all of them when asked
// (under mu).
func (h *Hub) dirtyFeeds(all bool, now time.Time) []*feed {
	var out []*feed
	for _, f := range h.feeds {
		if f.retry.waiting(now) {
			continue
		}
		if f.dirty || all || f.last == nil {
			f.dirty = false
			out = append(out, f)
		}
	}
	return out
}

// readFeeds reads the feeds' recent changes, then (under mu) sends each
// changed list to its clients. A feed whose read fails is read again after a
// backoff, so a shard that does not answer costs the tick's bounded wait at
// most once per maxRetry.
func (h *Hub) readFeeds(ctx context.Context, fs []*feed) {
	if len(fs) == 0 {
		return
	}
	bs := make([]*board.Board, len(fs))
	h.mu.Lock()
	for i, f := range fs {
		b := f.board
		bs[i] = &b
	}
	h.mu.Unlock()
	// Every board in two round trips, however many changed this tick.
	results := h.reader.RecentOf(ctx, bs, RecentSize)
	frames := make([][]byte, len(fs))
	var firstErr error
	for i, r := range results {
		err := r.Err
		if err == nil {
			items := rows.Activities(bs[i], r.Activities)
			if fs[i].shared && bs[i].Guarded() {
				// Who scored what, and their ranks: nothing a privacy mode
				// leaves to the shared surfaces.
				items = []rows.Activity{}
			}
			frames[i], err = encode(recentFrame{Type: "recent", Items: items})
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("recent changes of %q: %w", bs[i].ID, err)
		}
	}
	defer h.send()
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, f := range fs {
		msg := frames[i]
		if msg == nil {
			f.retry.failed(time.Now(), h.opts.Tick)
			f.dirty = true
			continue
		}
		f.retry = backoff{}
		if bytes.Equal(msg, f.last) {
			continue
		}
		f.last = msg
		for c := range f.clients {
			h.deliver(c, msg)
		}
	}
	if firstErr != nil && ctx.Err() == nil && time.Since(h.lastFeedWarn) >= maxRetry {
		h.lastFeedWarn = time.Now()
		h.log.Warn("live: recent changes could not be read; retried next tick", slog.Any("error", firstErr))
	}
}
