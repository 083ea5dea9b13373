package audit

import (
	"fmt"
	"strconv"

	"podium/board"
)

// ScoreChange is the entry for a score submission, measured in the board's
// default period (or its last enabled one): what a reader of the log expects
// to see ranked. It lives here, not with one writer, so every writer (the
// console, the API, the demo) describes a change the same way.
func ScoreChange(b *board.Board, actor string, sub board.Submission, r board.Result, why string) Entry {
	e := Entry{Actor: actor, Action: "score." + string(sub.Op), Board: b.ID, Member: sub.Member,
		Reason: fmt.Sprintf("%s %s", sub.Op, b.Format.Display(sub.Score))}
	if why != "" {
		e.Reason += ": " + why
	}
	if c, ok := pickChange(b, r.Changes); ok {
		e.Period = c.Period.String()
		e.Before, e.After = placeText(b, c.Before), placeText(b, c.After)
	}
	return e
}

func pickChange(b *board.Board, cs []board.Change) (board.Change, bool) {
	for _, c := range cs {
		if c.Period.Kind == b.DefaultPeriod {
			return c, true
		}
	}
	if len(cs) > 0 {
		return cs[len(cs)-1], true
	}
	return board.Change{}, false
}

func placeText(b *board.Board, p board.Place) string {
	if !p.Ranked {
		return "(none)"
	}
	return b.Format.Display(p.Score) + " (rank " + strconv.Itoa(p.Rank) + ")"
}
