package e2e

import (
	"context"
	"testing"

	"podium/board"
)

// TestTeamStandingsLive: a team board's team page ranks teams live as their
// members score and move, links each team to its members, and the widget
// shows the teams too.
func TestTeamStandingsLive(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "league", Title: "League", Periods: []board.Kind{board.Weekly, board.AllTime}, Teams: board.TeamsSum})
	by := board.Author{Actor: "test"}
	submit := func(sub board.Submission) {
		t.Helper()
		if _, err := a.store.Submit(context.Background(), "league", sub, by); err != nil {
			t.Fatal(err)
		}
	}
	submit(board.Submission{Member: "ann", Team: "Red", Score: 10})
	submit(board.Submission{Member: "bob", Team: "Blue", Score: 5})
	page := newPage(t)
	open(t, page, a.URL+"/b/league", 200)
	must(t, page.GetByTestId("teams-link").Click())
	must(t, expect.Locator(page.GetByTestId("board-title")).ToHaveText("League: teams"))
	must(t, expect.Locator(page.Locator("thead th").Nth(1)).ToHaveText("Team"))
	waitLive(t, page)
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"Red", "Blue"}))
	submit(board.Submission{Member: "cat", Team: "Blue", Score: 8}) // Blue 13
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"Blue", "Red"}))
	must(t, expect.Locator(page.GetByTestId("count")).ToHaveText("2 teams"))
	if _, _, err := a.store.SetTeam(context.Background(), "league", "cat", "Red", by); err != nil {
		t.Fatal(err)
	}
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"Red", "Blue"})) // Red 18, Blue 5

	must(t, page.GetByTestId("name").First().Click())
	must(t, expect.Locator(page.GetByTestId("team-title")).ToHaveText("Red"))
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"ann", "cat"}))

	open(t, page, a.URL+"/embed/league?teams=1", 200)
	waitLive(t, page)
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"Red", "Blue"}))
	submit(board.Submission{Member: "bob", Score: 30}) // Blue 35
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"Blue", "Red"}))
}
