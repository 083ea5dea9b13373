package rows

import (
	"time"

	"podium/board"
)

// Contest is a board's contest clock as live frames carry it to
// countdown.js: the window's bounds and a freeze's reveal at a set time,
// in Unix milliseconds (0: none), each worded in the board's zone as the
// pages word it. A snapshot sent after the definition changes carries the
// new bounds, so an open page follows a window moved meanwhile.
type Contest struct {
	Opens      int64  `json:"opens,omitempty"`
	OpensText  string `json:"opens_text,omitempty"`
	Closes     int64  `json:"closes,omitempty"`
	ClosesText string `json:"closes_text,omitempty"`
	Reveal     int64  `json:"reveal,omitempty"`
	RevealText string `json:"reveal_text,omitempty"`
}

// ContestOf is board b's contest clock, nil when it has nothing to count:
// no window and no reveal at a set time.
func ContestOf(b *board.Board) *Contest {
	if b.OpensAt.IsZero() && b.ClosesAt.IsZero() && b.RevealAt.IsZero() {
		return nil
	}
	c := &Contest{}
	c.Opens, c.OpensText = instant(b, b.OpensAt)
	c.Closes, c.ClosesText = instant(b, b.ClosesAt)
	c.Reveal, c.RevealText = instant(b, b.RevealAt)
	return c
}

// instant is t in Unix milliseconds and in words in b's zone (0, "": none).
func instant(b *board.Board, t time.Time) (int64, string) {
	if t.IsZero() {
		return 0, ""
	}
	return t.UnixMilli(), FreezeTime(b, t)
}
