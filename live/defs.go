package live

import (
	"context"
	"time"

	"podium/board"
)

// defWait is how long the hub keeps asking for a changed definition: a
// store answers from its cache for up to a second after a change, on this
// replica or another, and a view may attach meanwhile with the old one.
const defWait = 3 * time.Second

// noteDef records that board id's definition may have changed (under mu).
func (h *Hub) noteDef(id string) {
	if _, pending := h.defs[id]; !pending {
		h.defs[id] = time.Now()
	}
}

// refreshDefs re-reads the definitions that changed and moves their views
// to them; each view then sends a whole snapshot (its scores may now be
// formatted otherwise, its period may have moved with the zone). After a
// resync or a poll, tick notes every watched board (read from the store's
// cache: at most one read a second).
func (h *Hub) refreshDefs(ctx context.Context) {
	h.mu.Lock()
	if len(h.defs) == 0 {
		h.mu.Unlock()
		return
	}
	have := map[string]int64{} // the oldest version any view of a board shows
	for _, v := range h.views {
		if _, pending := h.defs[v.board.ID]; pending {
			if old, ok := have[v.board.ID]; !ok || v.board.Version < old {
				have[v.board.ID] = v.board.Version
			}
		}
	}
	h.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	fresh := map[string]board.Board{}
	for id, version := range have {
		if b, err := h.reader.Board(rctx, id); err == nil && b.Version > version {
			fresh[id] = b
		}
	}
	now := h.reader.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, since := range h.defs {
		if time.Since(since) >= defWait {
			delete(h.defs, id)
		}
		b, ok := fresh[id]
		if !ok {
			continue
		}
		for _, shared := range []bool{false, true} {
			if f := h.feeds[feedKey{id, shared}]; f != nil && f.board.Version < b.Version {
				f.board, f.dirty = b, true // formats and zone of its lines, its privacy mode
			}
		}
		for _, v := range h.views {
			if v.board.ID != id || v.board.Version >= b.Version {
				continue
			}
			v.board, v.rolled = b, true
			p := b.Current(v.spec.Kind, now)
			if v.spec.Key != "" {
				if at, err := b.PeriodOf(v.spec.Kind, v.spec.Key); err == nil {
					p = at
				}
			}
			if p.Key != v.period.Key {
				h.rekey(v, p)
			} else {
				v.period = p // same key, bounds in the new zone
			}
		}
	}
}
