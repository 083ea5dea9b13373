package api_test

import (
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
)

// TestAPITeamsFrozen: a frozen team board's team answers say since when.
func TestAPITeamsFrozen(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "cup", Title: "Cup", Teams: board.TeamsSum}, nil)
	if _, err := f.Store.Submit(t.Context(), "cup", board.Submission{Member: "ann", Team: "red", Score: 3}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Store.Freeze(t.Context(), "cup", time.Time{}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v1/boards/cup/teams", "/api/v1/boards/cup/teams/red"} {
		status, out, _ := f.Call("GET", path, "", "")
		if since, _ := out["frozen_since"].(string); status != 200 || since == "" {
			t.Errorf("%s: %d %v", path, status, out)
		}
	}
}
