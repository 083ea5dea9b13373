package templates

import (
	"testing"

	"podium/board"
)

// TestBoardMetaFollowsTheUnit: the line under a board's title names what
// its scores count, from its suffix or prefix where it has one.
func TestBoardMetaFollowsTheUnit(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    board.Board
		want string
	}{
		{"plain points", board.Board{Format: board.Format{Type: board.Integer}, TimeZone: "UTC"}, "Points · higher is better"},
		{"golf in strokes", board.Board{Format: board.Format{Type: board.Integer, Suffix: " strokes"}, Order: board.LowerIsBetter, TimeZone: "UTC"}, "Strokes · lower is better"},
		{"pts is points", board.Board{Format: board.Format{Type: board.Integer, Suffix: " pts"}, TimeZone: "UTC"}, "Points · higher is better"},
		{"dollars", board.Board{Format: board.Format{Type: board.Decimal, Decimals: 2, Prefix: "$"}, TimeZone: "UTC"}, "Amounts in $ · higher is better"},
		{"kilograms", board.Board{Format: board.Format{Type: board.Decimal, Decimals: 1, Suffix: " kg"}, TimeZone: "UTC"}, "Amounts in kg · higher is better"},
		{"times and a zone", board.Board{Format: board.Format{Type: board.Duration}, Order: board.LowerIsBetter, TimeZone: "Europe/Paris"}, "Times · lower is better · Europe/Paris"},
		{"a word in another script", board.Board{Format: board.Format{Type: board.Integer, Suffix: " очков"}, TimeZone: "UTC"}, "Очков · higher is better"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := BoardMeta(&tc.b); got != tc.want {
				t.Fatalf("BoardMeta = %q, want %q", got, tc.want)
			}
		})
	}
}
