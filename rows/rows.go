// Package rows is how a board's entries are shown to people: ranks, tie marks
// and formatted scores. The pages, the JSON API and the live hub all build
// their rows here, so a page, an API answer and a live frame always agree.
package rows

import (
	"slices"

	"podium/board"
)

// Row is one line of a board, ready to display. Its JSON form is what live
// frames carry to browsers.
type Row struct {
	Member string   `json:"m"`
	Name   string   `json:"n"`
	Rank   int      `json:"r"`
	Tied   bool     `json:"t,omitempty"`
	Score  string   `json:"s"`
	Value  float64  `json:"v"` // the stored score, in the board's units
	Fields []string `json:"f,omitempty"`
	// Masked: Member and Name stand for a member whose name the board's
	// privacy mode hides (Lens): no link leads anywhere from them.
	Masked bool `json:"a,omitempty"`
}

// Of turns entries into rows; a row is tied when a neighbour on the same page
// shares its rank (never on ordinal boards, where no two ranks are equal).
func Of(b *board.Board, entries []board.Entry) []Row {
	out := make([]Row, len(entries))
	for i, e := range entries {
		r := Row{Member: e.Member, Name: e.Name, Rank: e.Rank, Score: b.Format.Display(e.Score), Value: e.Score, Masked: e.Masked}
		if b.RankStyle != board.Ordinal {
			r.Tied = (i > 0 && entries[i-1].Rank == e.Rank) || (i+1 < len(entries) && entries[i+1].Rank == e.Rank)
		}
		for _, v := range e.Fields {
			r.Fields = append(r.Fields, board.Format{Type: board.Integer}.Display(float64(v)))
		}
		out[i] = r
	}
	return out
}

// Segmented are a segment's entries (board.Page.Segment) as their rows
// show them: after the board's extra fields, one more, the rank on the
// whole period, so a segment's page and its live frames show the same
// "Board" column. The entries given are not changed.
func Segmented(entries []board.Entry) []board.Entry {
	out := make([]board.Entry, len(entries))
	for i, e := range entries {
		e.Fields = append(slices.Clip(e.Fields), int64(e.GlobalRank))
		out[i] = e
	}
	return out
}

// Equal reports whether two rows show the same thing.
func (r Row) Equal(o Row) bool {
	return r.Member == o.Member && r.Name == o.Name && r.Rank == o.Rank && r.Tied == o.Tied &&
		r.Score == o.Score && r.Value == o.Value && slices.Equal(r.Fields, o.Fields) && r.Masked == o.Masked
}
