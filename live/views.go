package live

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"podium/board"
	"podium/redisstore"
	"podium/rows"
)

// The views' bookkeeping: their index by key, their frames, and the
// clients that attach to and detach from them.

// rekey moves a "current period" view to a new period key at roll-over.
func (h *Hub) rekey(v *view, p board.Period) {
	h.unindex(v)
	v.period = p
	v.setKeys()
	v.rolled = true
	h.index(v)
}

// setKeys names the keys whose changes v shows: its period's sorted set
// and, for a segment's page, the segment's standing, which a member's
// move between values changes alone.
func (v *view) setKeys() {
	v.zkey, v.gkey = redisstore.ZSetKey(v.board.ID, v.period), ""
	if !v.spec.Segment.IsZero() {
		v.gkey = redisstore.SegmentZSetKey(v.board.ID, v.period, v.spec.Segment)
	}
}

func (h *Hub) index(v *view) {
	for _, k := range []string{v.zkey, v.gkey} {
		if k == "" {
			continue
		}
		if h.byKey[k] == nil {
			h.byKey[k] = map[*view]struct{}{}
		}
		h.byKey[k][v] = struct{}{}
	}
}

func (h *Hub) unindex(v *view) {
	for _, k := range []string{v.zkey, v.gkey} {
		delete(h.byKey[k], v)
		if len(h.byKey[k]) == 0 {
			delete(h.byKey, k)
		}
	}
}

// query is what the hub reads for view v. A shared page of a board that
// shows only its top reads the top whole, whatever the page (snapshot keeps
// the page's part of it): what a page costs to read then tells nothing of
// the members beyond the top.
func (v *view) query() redisstore.ViewQuery {
	q := redisstore.ViewQuery{Board: &v.board, Period: v.period, Offset: v.spec.Offset, Limit: v.spec.Limit, Member: v.spec.Member,
		Radius: v.spec.Radius, Teams: v.spec.Teams, Live: v.spec.Live, Segment: v.spec.Segment}
	if v.spec.Members != "" {
		q.Members = strings.Split(v.spec.Members, "\n")
	}
	if v.topOnly() {
		q.Offset, q.Limit = 0, v.board.TopOnly
	}
	return q
}

// topOnly reports whether v is a shared page of a board that shows only
// its top.
func (v *view) topOnly() bool {
	return v.spec.Shared && !v.spec.Teams && v.spec.Member == "" && v.board.TopOnly > 0
}

func (h *Hub) snapshot(v *view, res redisstore.ViewResult) *Snapshot {
	s := &Snapshot{Period: string(v.period.Kind), Key: v.period.Key, Title: v.period.Title(), Rows: []rows.Row{},
		Frozen: rows.FrozenNotice(&v.board, h.reader.Now(), v.spec.Live)}
	if errors.Is(res.Err, board.ErrNotFound) {
		s.Missing = true
		return s
	}
	s.Total, s.Offset = res.Page.Total, res.Page.Offset
	entries := res.Page.Entries
	if v.spec.Members != "" { // a list's: whole, or nothing where a privacy mode limits the reader
		if v.spec.Shared && h.lens(v).Limited() {
			// Nothing, not even the period's size (top_only hides it),
			// until the socket's guard closes it.
			entries, s.Total, s.Offset = nil, 0, 0
		}
	} else if v.spec.Shared && !v.spec.Segment.IsZero() {
		entries, s.Total = segmentShown(h.lens(v), v, entries, s.Total)
		if len(entries) > 0 {
			s.Offset = entries[0].Position
		}
	} else if v.spec.Shared && !v.spec.Teams { // team rows are teams: no privacy mode of members
		lens := h.lens(v)
		if v.topOnly() { // the top was read: the page's part of it
			lo, hi := min(v.spec.Offset, len(entries)), min(v.spec.Offset+v.spec.Limit, len(entries))
			entries, s.Offset = entries[lo:hi], v.spec.Offset
		}
		entries, s.Total = lens.Entries(entries), lens.Total(s.Total)
		if v.spec.Member != "" && !lens.Opens(v.spec.Member) {
			// Another member's around-me on a board that has since got a
			// privacy mode: nothing of it, not even whether it has a score.
			entries, s.Missing = nil, false
		}
		if len(entries) > 0 {
			s.Offset = entries[0].Position
		}
	}
	if !v.spec.Segment.IsZero() {
		entries = rows.Segmented(entries)
	}
	s.Rows = rows.Of(&v.board, entries)
	return s
}

// segmentShown is what a shared page of a segment shows of entries read
// (and of total, the segment's members): its members among the board's
// top where only the top is shown, read from the segment's top whole
// (none further down can be among the board's), then the page's part;
// names as the board's mode shows them. Mirrors the API's segment filter.
func segmentShown(lens rows.Lens, v *view, entries []board.Entry, total int) ([]board.Entry, int) {
	entries = lens.SegmentEntries(entries)
	if !v.topOnly() {
		return entries, total
	}
	n := len(entries)
	return entries[min(v.spec.Offset, n):min(v.spec.Offset+v.spec.Limit, n)], n
}

// lens is what a view's readers see of its board: everything, or, for a
// shared view, what its privacy mode shows, with the view's member whole
// when it is their own.
func (h *Hub) lens(v *view) rows.Lens {
	sight := rows.Sight{Full: !v.spec.Shared}
	if v.spec.Own {
		sight.Me = v.spec.Member
	}
	return rows.Lens{Board: &v.board, Sight: sight, Masker: h.opts.Masker}
}

// Frames sent to browsers: {"type":"snapshot",...Snapshot} or
// {"type":"diff",...Delta}. (One struct embedding both would make encoding/json
// drop the fields they share.)
type snapshotFrame struct {
	Type string `json:"type"`
	*Snapshot
}

type diffFrame struct {
	Type string `json:"type"`
	*Delta
}

// publish sends a view's new state: whole when asked (new view, roll-over,
// resync), else as a diff, and nothing when nothing changed. Each frame is
// encoded and framed once (wire.go) and the same bytes go to every client.
func (h *Hub) publish(v *view, snap *Snapshot, whole bool) {
	snapMsg, err := encode(snapshotFrame{Type: "snapshot", Snapshot: snap})
	if err != nil {
		h.log.Error("live: encode snapshot", slog.Any("error", err))
		return
	}
	msg := snapMsg
	if !whole {
		d, changed := Diff(v.last, snap)
		if !changed {
			return
		}
		if msg, err = encode(diffFrame{Type: "diff", Delta: &d}); err != nil {
			h.log.Error("live: encode diff", slog.Any("error", err))
			return
		}
	}
	h.stats.framed()
	v.last, v.snapMsg, v.sentAt = snap, snapMsg, time.Now()
	for c := range v.clients {
		h.deliver(c, msg)
	}
}

// attach registers a client for a spec, creating the view if needed; a view
// that already has a snapshot sends it to the newcomer at once.
func (h *Hub) attach(ctx context.Context, c *client, spec Spec) error {
	b, err := h.reader.Board(ctx, spec.Board)
	if err != nil {
		return err
	}
	p := b.Current(spec.Kind, h.reader.Now())
	if spec.Key != "" {
		if p, err = b.PeriodOf(spec.Kind, spec.Key); err != nil {
			return err
		}
	}
	follow := spec.Recent
	spec.Recent = false
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return errClosing
	}
	v := h.views[spec]
	if v == nil {
		v = &view{spec: spec, board: b, period: p, clients: map[*client]struct{}{}}
		v.setKeys()
		h.views[spec] = v
		h.index(v)
	}
	v.clients[c] = struct{}{}
	c.view = v
	h.stats.clients.Add(1)
	if v.snapMsg != nil {
		h.deliver(c, v.snapMsg)
	}
	if follow {
		h.follow(c, b, spec.Shared)
	}
	return nil
}

// detach removes a client; a view left without clients is dropped.
func (h *Hub) detach(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.guarded, c)
	v := c.view
	if v == nil {
		return
	}
	if _, ok := v.clients[c]; !ok {
		return
	}
	delete(v.clients, c)
	h.unfollow(c)
	h.stats.clients.Add(-1)
	if len(v.clients) == 0 {
		h.unindex(v)
		delete(h.views, v.spec)
	}
}

// closeAll refuses new sockets, tells every client the server is going
// away (1001), and waits, at most CloseTimeout, for their close handshakes:
// the process may exit once Run returns.
func (h *Hub) closeAll() {
	h.mu.Lock()
	h.closing = true
	var all []*client
	for _, v := range h.views {
		for c := range v.clients {
			all = append(all, c)
		}
	}
	h.mu.Unlock()
	for _, c := range all {
		go h.end(c, nil)
	}
	done := make(chan struct{})
	go func() { h.sockets.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(h.opts.CloseTimeout):
		h.log.Warn("live: clients still closing at shutdown", slog.Duration("waited", h.opts.CloseTimeout))
	}
}
