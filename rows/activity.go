package rows

import (
	"fmt"
	"strconv"

	"podium/board"
)

// Activity is one line of a board's recent changes: who, what was sent, when,
// and what it did in each period it touched, so the board page of any period
// (and the live frames that keep it fresh) shows it as that period saw it.
type Activity struct {
	Member string `json:"m"`
	Name   string `json:"n"`
	Time   int64  `json:"t"` // Unix milliseconds
	// Periods holds the change in each period it touched, by the period's
	// String(): "week:2026-W47", "all".
	Periods map[string]Place `json:"p"`
}

// Place is what a change did in one period.
type Place struct {
	Delta string `json:"d"`           // "+50", "−3", "set 120", "tried 71", "new best 68"
	After string `json:"a,omitempty"` // the score after it, formatted; empty when unranked
	Rank  string `json:"r,omitempty"` // "3rd (▲2)"
	Up    bool   `json:"up,omitempty"`
	Down  bool   `json:"down,omitempty"`
}

// Activities shows a board's recent changes.
func Activities(b *board.Board, acts []board.Activity) []Activity {
	out := make([]Activity, 0, len(acts))
	for _, a := range acts {
		v := Activity{Member: a.Member, Name: a.Name, Time: a.Time.UnixMilli(), Periods: make(map[string]Place, len(a.Changes))}
		for _, c := range a.Changes {
			v.Periods[c.Period.String()] = place(b, a, c)
		}
		out = append(out, v)
	}
	return out
}

func place(b *board.Board, a board.Activity, c board.Change) Place {
	val := b.Format.Display(a.Value)
	var p Place
	switch a.Op {
	case board.Incr:
		p.Delta = "+" + val
	case board.Decr:
		p.Delta = "−" + val
	case board.Set:
		p.Delta = "set " + val
	case board.Best:
		p.Delta = "tried " + val
		if c.After.Ranked && c.After.Score == a.Value && (!c.Before.Ranked || c.Before.Score != a.Value) {
			p.Delta = "new best " + val
		}
	}
	if !c.After.Ranked || c.After.Rank <= 0 { // a bulk load that skipped ranks
		return p
	}
	p.After = b.Format.Display(c.After.Score)
	p.Rank = Ordinal(c.After.Rank)
	if c.Before.Ranked {
		p.Up = c.After.Rank < c.Before.Rank
		p.Down = c.After.Rank > c.Before.Rank
		if d := c.Before.Rank - c.After.Rank; d > 0 {
			p.Rank += fmt.Sprintf(" (▲%d)", d)
		} else if d < 0 {
			p.Rank += fmt.Sprintf(" (▼%d)", -d)
		}
	}
	return p
}

// Ordinal writes 1st, 2nd, 3rd, 4th, 11th, 21st.
func Ordinal(n int) string {
	suffix := "th"
	switch n % 100 {
	case 11, 12, 13:
	default:
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}
