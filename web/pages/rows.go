package pages

import (
	"time"

	"podium/board"
	"podium/rows"
	"podium/web/templates"
)

// tableOf turns entries into table rows as the reader sees them (l: the
// board's privacy mode, through rows.Lens): rows they may not see are left
// out, with a gap row where places are skipped, hidden names are shown as
// the mode says, and only members whose pages open for them are linked.
// Rows go through the same builder as live frames, so a page and its
// updates agree on formatting and ties.
func tableOf(l rows.Lens, entries []board.Entry, me string, label string) templates.Table {
	b := l.Board
	t := templates.Table{Label: label}
	for _, f := range b.Fields {
		t.Fields = append(t.Fields, f.Name)
	}
	shown := l.Entries(entries)
	for i, r := range rows.Of(b, shown) {
		if l.Limited() && i > 0 && shown[i].Position > shown[i-1].Position+1 {
			t.Rows = append(t.Rows, templates.Row{Gap: true})
		}
		row := templates.Row{Rank: r.Rank, Tied: r.Tied, Member: r.Member, Name: r.Name, Score: r.Score, Fields: r.Fields,
			Me: me != "" && r.Member == me && !r.Masked}
		if !r.Masked && l.Opens(r.Member) {
			row.Href = memberURL(b.ID, r.Member)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// full sees a board whole: team standings (teams are no members' names),
// and what the console shows.
func full(b *board.Board) rows.Lens { return rows.Lens{Board: b, Sight: rows.Sight{Full: true}} }

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
