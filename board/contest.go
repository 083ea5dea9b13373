package board

import (
	"errors"
	"fmt"
	"time"
)

// A contest window: a board may open for writes at OpensAt and close at
// ClosesAt (either may be zero: no bound). Outside it every submission is
// refused, from the API, the console and outside writers (FCALL) alike, in
// the script that writes, so a write racing the close is either in or
// refused, never half applied. Reads, freezes and reveals go on.

// ErrContestClosed refuses a write outside a board's contest window.
var ErrContestClosed = errors.New("contest closed")

// ContestError says when a refused write's contest opens or closed.
type ContestError struct {
	Board string
	At    time.Time // when the contest opens (Early) or closed
	Early bool
}

func (e *ContestError) Error() string {
	if e.Early {
		return fmt.Sprintf("the contest on board %q opens at %s; nothing was written", e.Board, e.At.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("the contest on board %q closed at %s; nothing was written", e.Board, e.At.UTC().Format(time.RFC3339))
}

func (e *ContestError) Unwrap() error { return ErrContestClosed }

// Contest bounds. Instants are kept to the microsecond.
var (
	minContestTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	maxContestTime = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
)

// ContestOpen is nil while board b takes writes at now, else a
// *ContestError.
func (b *Board) ContestOpen(now time.Time) error {
	if !b.OpensAt.IsZero() && now.Before(b.OpensAt) {
		return &ContestError{Board: b.ID, At: b.OpensAt, Early: true}
	}
	if !b.ClosesAt.IsZero() && !now.Before(b.ClosesAt) {
		return &ContestError{Board: b.ID, At: b.ClosesAt}
	}
	return nil
}

// checkContest holds a contest window to a sane range, its close after
// its opening.
func (b *Board) checkContest(p *problems) {
	for _, f := range []struct {
		name string
		at   time.Time
	}{{"opens_at", b.OpensAt}, {"closes_at", b.ClosesAt}} {
		if !f.at.IsZero() && (f.at.Before(minContestTime) || f.at.After(maxContestTime)) {
			p.add(f.name, "must be between 2000 and 9999")
		}
	}
	if !b.OpensAt.IsZero() && !b.ClosesAt.IsZero() && !b.ClosesAt.After(b.OpensAt) {
		p.add("closes_at", "must come after opens_at")
	}
}
