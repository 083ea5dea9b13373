package live

import (
	"strings"

	"podium/redisstore"
)

// markDirty notes a keyspace notification: the views (and recent changes)
// it may have changed are read again on the next tick.
func (h *Hub) markDirty(key string) {
	if c := h.cache.Load(); c != nil {
		if id, ok := readKeyOf(key); ok {
			c.Changed(id)
		}
	}
	if id, ok := redisstore.ParseDefKey(key); ok {
		// The definition changed (format, zone, periods): tick re-reads it.
		h.mu.Lock()
		h.noteDef(id) // watched or not: a view may be attaching with the old one
		h.mu.Unlock()
		return
	}
	if id, ok := redisstore.ParseRecentKey(key); ok {
		h.mu.Lock()
		h.markRecent(id)
		h.mu.Unlock()
		return
	}
	if id, ok := redisstore.ParseFreezeKey(key); ok {
		// A freeze was taken or lifted: every view of the board reads again
		// (its public views now show the copy, or the reveal), and so do
		// its recent changes (the public's: the list at the freeze). While
		// frozen, the changes of names and recent changes that follow read
		// the same copy again, so they send the public nothing.
		h.markBoard(id)
		return
	}
	if id, ok := redisstore.ParseNamesKey(key); ok {
		// A display name changed: every view of the board shows names, and
		// so do its recent changes.
		h.markBoard(id)
		return
	}
	if z, g, ok := redisstore.ParseSegmentKey(key); ok {
		h.markSegment(z, g)
		return
	}
	if z, ok := strings.CutSuffix(key, ":t"); ok {
		key = z // a team standing changed alone (a member moved): its period's views
	}
	if _, _, _, ok := redisstore.ParseZSetKey(key); !ok {
		return
	}
	h.mu.Lock()
	if _, watched := h.byKey[key]; watched {
		h.dirty[key] = struct{}{}
	}
	h.mu.Unlock()
}

// markSegment notes a change of a segment's standing g of period zset z
// (a member's move between values changes those keys alone): the pages of
// that segment read again; a change of the list of z's standings (g "")
// marks every segment page of z.
func (h *Hub) markSegment(z, g string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if g != "" {
		if _, watched := h.byKey[g]; watched {
			h.dirty[g] = struct{}{}
		}
		return
	}
	for v := range h.byKey[z] {
		if v.gkey != "" {
			h.dirty[v.gkey] = struct{}{}
		}
	}
}

// markBoard marks every view of a board, and its recent changes, dirty.
func (h *Hub) markBoard(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.markRecent(id)
	for _, v := range h.views {
		if v.board.ID == id {
			h.dirty[v.zkey] = struct{}{}
		}
	}
}

// readKeyOf is the board whose key (lb:{<board>}:...) key is, when a read
// of the board's standings may depend on it: its scores, names,
// definition, freeze and frozen copies. The keys its reads never use (the
// outside writers' schedule, rewritten every minute; the audit log,
// idempotency keys, recent changes, webhooks, the archive's marks) change
// no cached answer.
func readKeyOf(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "lb:{")
	if !ok {
		return "", false
	}
	id, rest, ok := strings.Cut(rest, "}")
	if !ok || id == "" {
		return "", false
	}
	part, _, _ := strings.Cut(strings.TrimPrefix(rest, ":"), ":")
	switch part {
	case "sched", "audit", "idem", "recent", "hooks", "archive", "periods", "erasures":
		return "", false
	}
	return id, true
}
