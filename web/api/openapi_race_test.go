package api_test

import (
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// raceCases are TestOpenAPIResponses' requests of a period's race, on its
// boards "chess" (a closed week, 2026-W50, gone to an archive this server
// does not have) and "class" (the top place only, under pseudonyms), and a
// board of its own that keeps a rolling window.
func raceCases(t *testing.T, f *webtest.Server) []apiCase {
	t.Helper()
	f.Board(board.Board{ID: "rolling", Title: "Rolling", Periods: []board.Kind{board.Last7d, board.AllTime}}, map[string]float64{"ann": 1})
	return []apiCase{
		{"race", "GET", "/boards/chess/race", "", "", nil, 200},
		{"race of this week", "GET", "/boards/chess/race?period=week", "", "", nil, 200},
		{"race under a privacy mode", "GET", "/boards/class/race", "", "", nil, 200},
		{"race of a week that is none", "GET", "/boards/chess/race?period=week&at=soon", "", "", nil, 404},
		{"race of an unknown board", "GET", "/boards/nope/race", "", "", nil, 404},
		{"race of a rolling window", "GET", "/boards/rolling/race?period=last7d", "", "", nil, 404},
		{"race of a week gone", "GET", "/boards/chess/race?period=week&at=2026-W50", "", "", nil, 410},
	}
}
