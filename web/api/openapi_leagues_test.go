package api_test

import (
	"context"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
	"podium/redisstore"
)

// leagueCases are TestOpenAPIResponses' requests about leagues, on a
// weekly league board "lg" whose week 2026-W50 has left Redis for an
// archive this server does not have.
func leagueCases(t *testing.T, f *webtest.Server) []apiCase {
	t.Helper()
	ctx := context.Background()
	f.Board(board.Board{ID: "lg", Title: "Ladder", Periods: []board.Kind{board.Weekly, board.AllTime},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: 2, Promote: 1, Relegate: 1}}, nil)
	for _, sub := range []board.Submission{{Member: "ann", Score: 5}, {Member: "bob", Score: 7}, {Member: "cat", Score: 3}} {
		if _, err := f.Store.Submit(ctx, "lg", sub, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := webtest.Redis(t).HSet(ctx, redisstore.ArchiveState("lg"), "week:2026-W50", "0 1"+redisstore.ExpiredMark).Err(); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("m", 129)
	return []apiCase{
		{"leagues", "GET", "/boards/lg/leagues", "", "", nil, 200},
		{"export of a league week", "GET", "/boards/lg/export?period=week&format=json", "", "", nil, 200},
		{"leagues of a past week", "GET", "/boards/lg/leagues?period=week&at=2026-W49", "", "", nil, 200},
		{"leagues of another kind", "GET", "/boards/lg/leagues?period=all", "", "", nil, 400},
		{"leagues of a board without", "GET", "/boards/chess/leagues", "", "", nil, 404},
		{"leagues of a week gone", "GET", "/boards/lg/leagues?at=2026-W50", "", "", nil, 410},
		{"cohort", "GET", "/boards/lg/leagues/0/1?limit=5", "", "", nil, 200},
		{"cohort nobody is in", "GET", "/boards/lg/leagues/2/9", "", "", nil, 200},
		{"cohort bad tier", "GET", "/boards/lg/leagues/gold/1", "", "", nil, 400},
		{"cohort bad limit", "GET", "/boards/lg/leagues/0/1?limit=0", "", "", nil, 400},
		{"cohort of a tier out of range", "GET", "/boards/lg/leagues/3/1", "", "", nil, 404},
		{"cohort of a board without", "GET", "/boards/chess/leagues/0/1", "", "", nil, 404},
		{"cohort of a week gone", "GET", "/boards/lg/leagues/0/1?period=week&at=2026-W50", "", "", nil, 410},
		{"member league", "GET", "/boards/lg/members/ann/league", "", "", nil, 200},
		{"member league, not placed", "GET", "/boards/lg/members/zed/league", "", "", nil, 200},
		{"member league of another kind", "GET", "/boards/lg/members/ann/league?period=all", "", "", nil, 400},
		{"member league on a board without", "GET", "/boards/chess/members/ann/league", "", "", nil, 404},
		{"member league in a week gone", "GET", "/boards/lg/members/ann/league?at=2026-W50", "", "", nil, 410},
		{"member league, a bad member id", "GET", "/boards/lg/members/" + long + "/league", "", "", nil, 422},
	}
}
