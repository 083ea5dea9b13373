package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"podium/audit"
	"podium/board"
)

func (s *Handler) freezeOf(b *board.Board) freezeJSON {
	j := freezeJSON{Board: b.ID}
	if !b.FreezeAt.IsZero() {
		at := b.FreezeAt
		j.FreezeAt = &at
		_, j.Frozen = b.FrozenSince(s.opts.Store.Now())
	}
	return j
}

// frozenSince is what read answers say of a frozen board: since when its
// standings are frozen (they show that instant), or nil.
func (s *Handler) frozenSince(b *board.Board) *time.Time {
	if since, ok := b.FrozenSince(s.opts.Store.Now()); ok {
		return &since
	}
	return nil
}

// apiFreeze freezes a board's public standings: now, or at "at".
func (s *Handler) apiFreeze(c echo.Context) error {
	b, err := s.boardToWrite(c)
	if err != nil {
		return err
	}
	var body struct {
		At     *time.Time `json:"at"`
		Reason string     `json:"reason"`
	}
	if c.Request().ContentLength != 0 { // no body: now
		if err := decodeJSON(c, &body); err != nil {
			return err
		}
	}
	if len(body.Reason) > 2000 {
		ae := apiErr(422, "invalid", "reason must be at most 2,000 bytes")
		ae.Field = "reason"
		return ae
	}
	var at time.Time
	if body.At != nil {
		if body.At.IsZero() { // the store reads the zero time as "now"
			ae := apiErr(422, "invalid", "at is in the past; leave it out to freeze now")
			ae.Field = "at"
			return ae
		}
		at = *body.At
	}
	fb, err := s.opts.Store.Freeze(c.Request().Context(), b.ID, at)
	if err != nil {
		return err // board.ErrFrozen: 409 frozen
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "board.freeze", Board: b.ID, Before: stateOf(&b, s.opts.Store.Now()),
		After: "frozen at " + fb.FreezeAt.Format(time.RFC3339), Reason: body.Reason})
	return c.JSON(http.StatusOK, s.freezeOf(&fb))
}

// apiUnfreeze lifts a board's freeze (or cancels one to come): the reveal.
func (s *Handler) apiUnfreeze(c echo.Context) error {
	b, err := s.boardToWrite(c)
	if err != nil {
		return err
	}
	ub, err := s.opts.Store.Unfreeze(c.Request().Context(), b.ID)
	if err != nil {
		return err // board.ErrNotFrozen: 409 not_frozen
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "board.unfreeze", Board: b.ID, Before: stateOf(&b, s.opts.Store.Now()), After: "live"})
	return c.JSON(http.StatusOK, s.freezeOf(&ub))
}

func stateOf(b *board.Board, now time.Time) string {
	switch since, ok := b.FrozenSince(now); {
	case ok:
		return "frozen at " + since.Format(time.RFC3339)
	case !b.FreezeAt.IsZero():
		return "freezing at " + b.FreezeAt.Format(time.RFC3339)
	}
	return "live"
}
