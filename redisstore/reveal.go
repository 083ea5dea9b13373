package redisstore

// A reveal at a set time (freeze.go): a freeze may say when it lifts on
// its own. The definition keeps the time (reveal_at, read by every
// replica, so reads show the live standings from that instant), and every
// replica's RunFreezes lifts the freeze then; the unfreeze checks it is
// still the reveal it was due for, so it happens once.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"podium/board"
)

// setReveal records when a board's freeze lifts on its own (zero: none).
func (f *freezes) setReveal(id string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reveals == nil {
		f.reveals = map[string]time.Time{}
	}
	if at.IsZero() {
		delete(f.reveals, id)
		return
	}
	f.reveals[id] = at
}

// takeReveals removes and returns the boards whose reveal is due at now.
func (f *freezes) takeReveals(now time.Time) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for id, at := range f.reveals {
		if !now.Before(at) {
			out = append(out, id)
			delete(f.reveals, id)
		}
	}
	return out
}

// ScheduleReveal sets when board id's freeze (taken, or set for later)
// lifts on its own: every replica's RunFreezes unfreezes it then, and from
// that instant reads show the live standings. Zero takes the reveal off;
// only an unfreeze lifts the freeze then. ErrNotFrozen without a freeze;
// a time before the freeze's, or in the past, is refused.
func (s freezer) ScheduleReveal(ctx context.Context, id string, at time.Time) (board.Board, error) {
	b, err := s.readBoard(ctx, id)
	if err != nil {
		return board.Board{}, err
	}
	if b.FreezeAt.IsZero() {
		return board.Board{}, fmt.Errorf("board %q is not frozen and has no freeze set; freeze it first: %w", id, board.ErrNotFrozen)
	}
	arg := ""
	if !at.IsZero() {
		at = at.Truncate(time.Microsecond)
		switch {
		case !at.After(b.FreezeAt):
			return board.Board{}, board.NewFieldError(board.ErrInvalidInput, "reveal_at", "must come after the freeze (%s)", b.FreezeAt.Format(time.RFC3339))
		case at.Before(s.now()):
			return board.Board{}, board.NewFieldError(board.ErrInvalidInput, "reveal_at", "is in the past; unfreeze to reveal now")
		case at.Year() > board.MaxYear:
			return board.Board{}, board.NewFieldError(board.ErrInvalidInput, "reveal_at", "must be before the year %d", board.MaxYear+1)
		}
		arg = strconv.FormatInt(at.UnixMicro(), 10)
	}
	reply, err := freezeCall(id, "reveal", s.now()).arg("at", arg).run(ctx, s.rdb).Result()
	if err != nil {
		return board.Board{}, fmt.Errorf("board: schedule the reveal of %q: %w", id, err)
	}
	switch st, _, err := status(reply); {
	case err != nil:
		return board.Board{}, fmt.Errorf("board: schedule the reveal of %q: %w", id, err)
	case st == "nf":
		return board.Board{}, fmt.Errorf("board %q: %w", id, board.ErrNotFound)
	case st == "none":
		return board.Board{}, fmt.Errorf("board %q is not frozen: %w", id, board.ErrNotFrozen)
	}
	s.frozen.setReveal(id, at)
	s.wrote(ctx, defKey(id))
	return s.afterFreeze(ctx, id)
}

// revealDue lifts board id's freeze whose reveal time has come, unless
// another replica did (or someone unfroze it, or moved the reveal): only
// the replica that lifts it tells revealed.
func (s freezer) revealDue(ctx context.Context, id string, report func(error), revealed func(board.Board)) {
	b, err := s.readBoard(ctx, id)
	if errors.Is(err, board.ErrNotFound) {
		return
	}
	if err != nil {
		report(err)
		return
	}
	if b.FreezeAt.IsZero() || b.RevealAt.IsZero() || s.now().Before(b.RevealAt) {
		s.frozen.setReveal(id, b.RevealAt) // lifted, taken off or moved since it was listed
		return
	}
	ub, err := s.unfreezeAt(ctx, id, b.RevealAt)
	switch {
	case errors.Is(err, board.ErrNotFrozen):
	case err != nil:
		if ctx.Err() == nil {
			report(err)
		}
	case revealed != nil:
		revealed(ub)
	}
}
