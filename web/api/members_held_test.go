package api_test

import (
	"context"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestMemberDataHeldScores: a member's copy of its data lists its scores
// held for review, in the board's unit, as the document describes them,
// even when the board keeps nothing else of it yet.
func TestMemberDataHeldScores(t *testing.T) {
	f := webtest.New(t)
	bound := int64(1000)
	f.Board(board.Board{ID: "cup", Title: "Cup", Format: board.Format{Type: board.Decimal, Decimals: 2},
		Rules: &board.Rules{MaxValue: &bound, OnBreak: board.RulesHold}}, nil)
	if res, err := f.Store.Submit(context.Background(), "cup", board.Submission{Member: "ann", Name: "Ann", Op: board.Set, Score: 1234},
		board.Author{Actor: "api:game"}); err != nil || !res.Held {
		t.Fatalf("held: %+v %v", res, err)
	}
	v := newOpenAPIValidator(t, f.URL)
	v.run(t, f.URL, apiCase{name: "a member with a held score", method: "GET", path: "/boards/cup/members/ann/data", key: f.Key("cup bot", "cup"), status: 200})
	_, out, _ := f.Call("GET", "/api/v1/boards/cup/members/ann/data", f.Key("cup bot 2", "cup"), "")
	held, _ := out["held"].([]any)
	if len(held) != 1 {
		t.Fatalf("held: %v", out)
	}
	if h := held[0].(map[string]any); h["value"] != 12.34 || h["name"] != "Ann" || h["op"] != "set" || h["rule"] != "max_value" {
		t.Fatalf("the held score: %v", h)
	}
}
