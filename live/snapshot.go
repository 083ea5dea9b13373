// Package live turns Redis keyspace notifications into updates on every open
// board page, around-me view and widget. A notification only says which key
// changed, so the hub marks the key dirty; on a short tick it re-reads each
// watched view of the dirty keys in one pipeline, diffs it with the last
// snapshot and sends the difference, encoded once per view, to every client.
package live

import (
	"podium/rows"
)

// Snapshot is the whole state of a view.
type Snapshot struct {
	Period  string `json:"period"` // kind: day, week, ...
	Key     string `json:"key"`    // period key, "" for all time
	Title   string `json:"title"`  // "Week 47, 16–22 Nov 2026"
	Total   int    `json:"total"`
	Offset  int    `json:"offset"`
	Missing bool   `json:"missing,omitempty"` // around-me: the member has no score in this period
	// Frozen is the view's notice about a freeze (rows.FrozenNotice): the
	// public's "frozen since", or an admin's "you see live standings".
	Frozen string `json:"frozen,omitempty"`
	// Contest is the board's contest clock (rows.ContestOf), nil for none.
	// Only snapshots carry it: a definition change sends each view one.
	Contest *rows.Contest `json:"contest,omitempty"`
	Rows    []rows.Row    `json:"rows"`
}

// Delta turns one snapshot into the next: the new order of members, and the
// rows that are new or changed. Members absent from Order left the view.
type Delta struct {
	Total   int                 `json:"total"`
	Offset  int                 `json:"offset"`
	Missing bool                `json:"missing,omitempty"`
	Frozen  string              `json:"frozen"` // "" lifts the notice: the reveal
	Order   []string            `json:"order"`
	Rows    map[string]rows.Row `json:"rows"`
}

// Diff is the delta from a to b; ok is false when nothing changed. A change of
// period (roll-over) is not a diff: the caller sends b whole.
func Diff(a, b *Snapshot) (d Delta, ok bool) {
	d = Delta{Total: b.Total, Offset: b.Offset, Missing: b.Missing, Frozen: b.Frozen, Order: make([]string, len(b.Rows)), Rows: map[string]rows.Row{}}
	old := make(map[string]rows.Row, len(a.Rows))
	for _, r := range a.Rows {
		old[r.Member] = r
	}
	changed := a.Total != b.Total || a.Offset != b.Offset || a.Missing != b.Missing || a.Frozen != b.Frozen || len(a.Rows) != len(b.Rows)
	for i, r := range b.Rows {
		d.Order[i] = r.Member
		if i < len(a.Rows) && a.Rows[i].Member != r.Member {
			changed = true
		}
		if o, seen := old[r.Member]; !seen || !o.Equal(r) {
			d.Rows[r.Member] = r
			changed = true
		}
	}
	return d, changed
}

// Apply is what a browser does with a delta: b's rows in b's order.
func Apply(a *Snapshot, d Delta) Snapshot {
	old := make(map[string]rows.Row, len(a.Rows))
	for _, r := range a.Rows {
		old[r.Member] = r
	}
	out := *a
	out.Total, out.Offset, out.Missing, out.Frozen = d.Total, d.Offset, d.Missing, d.Frozen
	out.Rows = make([]rows.Row, len(d.Order))
	for i, m := range d.Order {
		if r, ok := d.Rows[m]; ok {
			out.Rows[i] = r
		} else {
			out.Rows[i] = old[m]
		}
	}
	return out
}
