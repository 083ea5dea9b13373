package templates

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"podium/board"
)

// BoardMeta describes a board in a line, in the board's own unit where it
// names one: "Points · higher is better", "Strokes · lower is better",
// "Amounts in $ · higher is better".
func BoardMeta(b *board.Board) string {
	order := "higher is better"
	if b.Order == board.LowerIsBetter {
		order = "lower is better"
	}
	s := Unit(b.Format) + " · " + order
	if b.TimeZone != "UTC" {
		s += " · " + b.TimeZone
	}
	switch b.Visibility {
	case board.Private:
		s += " · private"
	case board.Unlisted:
		s += " · unlisted"
	}
	return s
}

// Unit names what a board's scores count. A suffix that is a word (" strokes",
// " goals") names it; a symbol or a short unit ("$", " kg") qualifies the
// kind of number: "Amounts in $".
func Unit(f board.Format) string {
	kind := map[board.FormatType]string{board.Integer: "Points", board.Decimal: "Amounts", board.Duration: "Times"}[f.Type]
	if kind == "" {
		kind = "Scores"
	}
	unit := strings.TrimSpace(f.Suffix)
	if unit == "" {
		unit = strings.TrimSpace(f.Prefix)
	}
	switch strings.ToLower(unit) {
	case "":
		return kind
	case "pt", "pts", "points", "point", "p":
		return "Points"
	}
	word := utf8.RuneCountInString(unit) >= 4
	for _, r := range unit {
		word = word && unicode.IsLetter(r)
	}
	if word {
		first, n := utf8.DecodeRuneInString(unit)
		return string(unicode.ToUpper(first)) + unit[n:]
	}
	return kind + " in " + unit
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
