package rows

import (
	"time"

	"podium/board"
)

// FrozenNotice is what a view of board b says about a freeze at now: to
// the public of a frozen board, since when its standings are frozen; to an
// admin (live), that they see live standings the public does not; "" when
// b is not frozen. Pages, the widget, the wall display and live frames show
// the same words.
func FrozenNotice(b *board.Board, now time.Time, live bool) string {
	since, ok := b.FrozenSince(now)
	if !ok {
		return ""
	}
	at := FreezeTime(b, since)
	if live {
		return "You see the live standings. The public sees them as they stood at " + at + " until you unfreeze the board."
	}
	return "Frozen since " + at + ": scores still count, and show when the board is revealed."
}

// FreezeTime is a freeze's time in the board's zone, "22 Nov 2026, 14:05 UTC".
func FreezeTime(b *board.Board, t time.Time) string {
	return t.In(b.Location()).Format("2 Jan 2006, 15:04 MST")
}
