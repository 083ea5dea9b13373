package live

import (
	"context"
	"time"

	"podium/board"
)

// watched reports whether any view shows board id (under mu).
func (h *Hub) watched(id string) bool {
	for _, v := range h.views {
		if v.board.ID == id {
			return true
		}
	}
	return false
}

// defWait is how long the hub keeps asking for a changed definition: the
// store answers from its cache for up to a second after a change.
const defWait = 3 * time.Second

// refreshDefs re-reads the definitions that changed and moves their views
// to them; each view then sends a whole snapshot (its scores may now be
// formatted otherwise, its current period may have moved with the zone).
func (h *Hub) refreshDefs(ctx context.Context) {
	h.mu.Lock()
	if len(h.defs) == 0 {
		h.mu.Unlock()
		return
	}
	have := map[string]int64{}
	for id := range h.defs {
		for _, v := range h.views {
			if v.board.ID == id {
				have[id] = v.board.Version
				break
			}
		}
	}
	h.mu.Unlock()
	fresh := map[string]board.Board{}
	for id, version := range have {
		if b, err := h.reader.Board(ctx, id); err == nil && b.Version != version {
			fresh[id] = b
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, since := range h.defs {
		b, ok := fresh[id]
		if !ok {
			if _, watched := have[id]; watched && time.Since(since) < defWait {
				continue // the cache may still hold the old one: ask again next tick
			}
			delete(h.defs, id)
			continue
		}
		delete(h.defs, id)
		for _, v := range h.views {
			if v.board.ID == id && v.board.Version < b.Version {
				v.board = b
				v.rolled = true
			}
		}
	}
}
