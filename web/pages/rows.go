package pages

import (
	"fmt"
	"strconv"
	"time"

	"podium/board"
	"podium/rows"
	"podium/web/templates"
)

// tableOf turns entries into table rows, through the same builder as live
// frames, so a page and its updates agree on formatting and ties.
func tableOf(b *board.Board, entries []board.Entry, me string, label string) templates.Table {
	t := templates.Table{Label: label}
	for _, f := range b.Fields {
		t.Fields = append(t.Fields, f.Name)
	}
	for _, r := range rows.Of(b, entries) {
		t.Rows = append(t.Rows, templates.Row{
			Rank: r.Rank, Tied: r.Tied, Member: r.Member, Name: r.Name, Score: r.Score, Fields: r.Fields,
			Href: memberURL(b.ID, r.Member),
			Me:   me != "" && r.Member == me,
		})
	}
	return t
}

// activities turns recent changes into panel lines, measured in the board's
// default period.
func activities(b *board.Board, acts []board.Activity, now time.Time) []templates.Activity {
	out := make([]templates.Activity, 0, len(acts))
	for _, a := range acts {
		v := templates.Activity{Name: a.Name, Href: memberURL(b.ID, a.Member), When: a.Time, Ago: templates.Ago(a.Time, now)}
		val := b.Format.Display(a.Value)
		switch a.Op {
		case board.Incr:
			v.Delta = "+" + val
		case board.Decr:
			v.Delta = "−" + val
		case board.Set:
			v.Delta = "set " + val
		}
		c, ok := board.PrimaryChange(b, a.Changes)
		if a.Op == board.Best {
			v.Delta = "tried " + val
			if ok && c.After.Ranked && c.After.Score == a.Value && (!c.Before.Ranked || c.Before.Score != a.Value) {
				v.Delta = "new best " + val
			}
		}
		if ok && c.After.Ranked {
			v.After = b.Format.Display(c.After.Score)
			v.Rank = templates.Ordinal(c.After.Rank)
			if c.Before.Ranked {
				v.Up = c.After.Rank < c.Before.Rank
				v.Down = c.After.Rank > c.Before.Rank
				if d := c.Before.Rank - c.After.Rank; d != 0 {
					v.Rank += fmt.Sprintf(" (%s%s)", map[bool]string{true: "▲", false: "▼"}[d > 0], strconv.Itoa(abs(d)))
				}
			}
		}
		out = append(out, v)
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
