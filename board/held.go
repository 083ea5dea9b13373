package board

import (
	"errors"
	"time"
)

// The review queue. A board whose rules say OnBreak: RulesHold keeps a
// write that breaks one, unapplied, for an owner or scorekeeper to look at
// (redisstore/held.go): approving applies it then, with the time it was
// sent for the time tie-break, past the rules it broke and past the
// contest's close (it was sent in time: approval is moderation); rejecting
// drops it. Both are audited by the script that makes the change.

// MaxHeld bounds a board's review queue: a write to hold past it is
// refused instead, naming its rule.
const MaxHeld = 1000

// ErrHeldGone: the held write is no longer held (approved or rejected
// already, or never held).
var ErrHeldGone = errors.New("held write not found")

// HeldWrite is one write in a board's review queue.
type HeldWrite struct {
	ID     int64
	Member string
	Name   string // the display name it would set; "" none
	Op     Op
	Value  float64 // in units
	Team   string  // the team it would move the member to; "" none
	Rule   string  // the rule it broke
	At     time.Time
	By     string // the actor that sent it
}
