package api_test

import (
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// ruleCases are TestOpenAPIResponses' requests about fair-play rules, on a
// board "fair" that refuses a score past its rules and a board "review"
// that holds one for review.
func ruleCases(t *testing.T, f *webtest.Server, all, chessOnly string) []apiCase {
	t.Helper()
	ten := int64(10)
	f.Board(board.Board{ID: "fair", Title: "Fair", Rules: &board.Rules{MaxValue: &ten}}, nil)
	f.Board(board.Board{ID: "review", Title: "Review", Rules: &board.Rules{MaxValue: &ten, OnBreak: board.RulesHold}}, nil)
	f.Board(board.Board{ID: "runs", Title: "Runs", Sessions: &board.Sessions{MinSeconds: 0, MaxSeconds: 60}}, nil)
	return []apiCase{
		{"submit at a rule's bound", "POST", "/boards/fair/scores", all, `{"member":"ann","score":10}`, nil, 200},
		{"submit past a rule", "POST", "/boards/fair/scores", all, `{"member":"ann","score":11}`, nil, 422},
		{"submit held for review", "POST", "/boards/review/scores", all, `{"member":"ann","score":11}`, nil, 202},
		{"a batch with a held score", "POST", "/boards/review/scores", all, `{"scores":[{"member":"ann","score":11},{"member":"bob","score":2}]}`, nil, 200},
		{"rules that cannot hold", "PUT", "/boards/fair", all, `{"title":"Fair","rules":{"min_value":5,"max_value":4}}`, nil, 422},
		{"start a run", "POST", "/boards/runs/sessions", all, `{"member":"ann"}`, nil, 201},
		{"start a run, malformed", "POST", "/boards/runs/sessions", all, `{"member":`, nil, 400},
		{"start a run without key", "POST", "/boards/runs/sessions", "", `{"member":"ann"}`, nil, 401},
		{"start a run with another board's key", "POST", "/boards/runs/sessions", chessOnly, `{"member":"ann"}`, nil, 403},
		{"start a run on an unknown board", "POST", "/boards/nope/sessions", all, `{"member":"ann"}`, nil, 404},
		{"start a run on a board without sessions", "POST", "/boards/fair/sessions", all, `{"member":"ann"}`, nil, 422},
		{"submit without a run's token", "POST", "/boards/runs/scores", all, `{"member":"ann","score":1}`, nil, 422},
		{"submit with an unknown token", "POST", "/boards/runs/scores", all, `{"member":"ann","score":1,"session":"` + strings.Repeat("0", 64) + `"}`, nil, 422},
		{"sessions that cannot hold", "PUT", "/boards/runs", all, `{"title":"Runs","sessions":{"min_seconds":60,"max_seconds":60}}`, nil, 422},
		{"rules updated", "PUT", "/boards/fair", all, `{"title":"Fair","rules":{"max_score":100,"max_rise_per_minute":20,"max_rise_per_hour":60,"on_break":"hold"}}`, nil, 200},
	}
}
