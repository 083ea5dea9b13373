package templates

import (
	"podium/board"
	"unicode"
)

// stepName is what the previous/next period links are called by screen
// readers, "Previous week" or "Next day", since on a phone they show only
// an arrow.
func stepName(step, kind string) string {
	switch board.Kind(kind) {
	case board.Daily, board.Weekly, board.Monthly, board.Yearly:
		return step + " " + kind
	}
	return step + " period"
}

// TabLabel names a period's kind as a tab: "Today", "This week", "All
// time", "This round" (a custom period, by its schedule's name).
func TabLabel(p board.Period) string {
	switch k := p.Kind; k {
	case board.Custom:
		return "This " + LowerName(p.ScheduleName())
	case board.Daily:
		return "Today"
	case board.Weekly:
		return "This week"
	case board.Monthly:
		return "This month"
	case board.Yearly:
		return "This year"
	case board.AllTime:
		return "All time"
	}
	return board.Period{Kind: p.Kind}.Title() // "Last 7 days"
}

// LowerName lower-cases a name's first letter where it reads as a word
// ("Round" in "This round"), not an acronym ("GP").
func LowerName(s string) string {
	r := []rune(s)
	if len(r) > 1 && unicode.IsUpper(r[0]) && unicode.IsLower(r[1]) {
		r[0] = unicode.ToLower(r[0])
	}
	return string(r)
}
