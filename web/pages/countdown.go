package pages

import (
	"time"

	"podium/board"
	"podium/rows"
	"podium/web/templates"
)

// countdownOf is board b's contest clock at now (templates.Countdown),
// with nothing to count (and nothing shown) when b has no contest window
// and no reveal at a set time: live frames may bring one. Its instants are
// worded in the board's zone, as the frozen notice words the freeze's.
func countdownOf(b *board.Board, now time.Time) *templates.Countdown {
	_, frozen := b.FrozenSince(now)
	c := &templates.Countdown{Now: now, Opens: b.OpensAt, Closes: b.ClosesAt, Reveal: b.RevealAt, Frozen: frozen}
	c.OpensText, c.ClosesText, c.RevealText = words(b, b.OpensAt), words(b, b.ClosesAt), words(b, b.RevealAt)
	return c
}

// words is an instant in b's zone ("" none).
func words(b *board.Board, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return rows.FreezeTime(b, t)
}
