package templates

import (
	"strings"

	"podium/board"
)

// BoardMeta describes a board in a line: "Points · higher is better".
func BoardMeta(b *board.Board) string {
	kind := map[board.FormatType]string{board.Integer: "Points", board.Decimal: "Amounts", board.Duration: "Times"}[b.Format.Type]
	order := "higher is better"
	if b.Order == board.LowerIsBetter {
		order = "lower is better"
	}
	s := kind + " · " + order
	if b.TimeZone != "UTC" {
		s += " · " + b.TimeZone
	}
	return s
}

// Kinds lists a board's period kinds: "week, month, all".
func Kinds(b *board.Board) string {
	out := make([]string, len(b.Periods))
	for i, k := range b.Periods {
		out[i] = string(k)
	}
	return strings.Join(out, ", ")
}

// Plural picks the word for n: Plural(1, "member", "members").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
