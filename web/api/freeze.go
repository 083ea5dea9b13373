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
	if !b.RevealAt.IsZero() {
		at := b.RevealAt
		j.RevealAt = &at
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

// apiFreeze freezes a board's public standings: now, or at "at", and
// reveals them on their own at "reveal_at". On a board frozen (or freezing)
// already, a body with reveal_at and no at sets (or, null, takes off) the
// reveal only.
func (s *Handler) apiFreeze(c echo.Context) error {
	b, err := s.boardToWrite(c)
	if err != nil {
		return err
	}
	var body struct {
		At       *time.Time  `json:"at"`
		RevealAt nullishTime `json:"reveal_at"`
		Reason   string      `json:"reason"`
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
	if body.RevealAt.Set && body.At == nil && !b.FreezeAt.IsZero() {
		return s.apiScheduleReveal(c, &b, body.RevealAt.T, body.Reason)
	}
	now := s.opts.Store.Now()
	freezes := at
	if freezes.IsZero() {
		freezes = now
	}
	if body.RevealAt.Set && !body.RevealAt.T.IsZero() && !body.RevealAt.T.After(freezes) {
		ae := apiErr(422, "invalid", "reveal_at must come after the freeze")
		ae.Field = "reveal_at"
		return ae
	}
	fb, err := s.opts.Store.Freeze(c.Request().Context(), b.ID, at)
	if err != nil {
		return err // board.ErrFrozen: 409 frozen
	}
	after := "frozen at " + fb.FreezeAt.Format(time.RFC3339)
	if body.RevealAt.Set && !body.RevealAt.T.IsZero() {
		if fb, err = s.opts.Store.ScheduleReveal(c.Request().Context(), b.ID, body.RevealAt.T); err != nil {
			return err
		}
		after += ", revealing at " + fb.RevealAt.Format(time.RFC3339)
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "board.freeze", Board: b.ID, Before: stateOf(&b, now),
		After: after, Reason: body.Reason})
	return c.JSON(http.StatusOK, s.freezeOf(&fb))
}

// apiScheduleReveal sets (zero: takes off) when a frozen board's freeze
// lifts on its own.
func (s *Handler) apiScheduleReveal(c echo.Context, b *board.Board, at time.Time, reason string) error {
	fb, err := s.opts.Store.ScheduleReveal(c.Request().Context(), b.ID, at)
	if err != nil {
		return err
	}
	after := stateOf(&fb, s.opts.Store.Now()) + ", revealed by hand"
	if !fb.RevealAt.IsZero() {
		after = stateOf(&fb, s.opts.Store.Now()) + ", revealing at " + fb.RevealAt.Format(time.RFC3339)
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "board.reveal", Board: b.ID, Before: stateOf(b, s.opts.Store.Now()), After: after, Reason: reason})
	return c.JSON(http.StatusOK, s.freezeOf(&fb))
}

// nullishTime is an optional time in a body: Set when the body names it,
// T zero for null.
type nullishTime struct {
	Set bool
	T   time.Time
}

func (n *nullishTime) UnmarshalJSON(raw []byte) error {
	n.Set = true
	if string(raw) == "null" {
		n.T = time.Time{}
		return nil
	}
	return n.T.UnmarshalJSON(raw)
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
