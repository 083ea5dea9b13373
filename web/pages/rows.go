package pages

import (
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

// activities turns recent changes into panel lines as period p saw them;
// changes that did not touch p are left out.
func activities(b *board.Board, acts []board.Activity, p board.Period, now time.Time) []templates.Activity {
	out := make([]templates.Activity, 0, len(acts))
	for _, a := range rows.Activities(b, acts) {
		pl, ok := a.Periods[p.String()]
		if !ok {
			continue
		}
		when := time.UnixMilli(a.Time)
		out = append(out, templates.Activity{Name: a.Name, Href: memberURL(b.ID, a.Member), When: when, Ago: templates.Ago(when, now),
			Delta: pl.Delta, After: pl.After, Rank: pl.Rank, Up: pl.Up, Down: pl.Down})
	}
	return out
}
