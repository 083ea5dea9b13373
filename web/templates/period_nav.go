package templates

import (
	"podium/board"
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
