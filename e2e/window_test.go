package e2e

import (
	"context"
	"testing"

	"podium/board"
)

// TestRollingWindowPage: a board opens on its last-7-days window, says what
// the window covers, and takes a write live into its rows and its recent
// changes, like any period.
func TestRollingWindowPage(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "streak", Title: "Streak", Periods: []board.Kind{board.Weekly, board.Last24h, board.Last7d}, DefaultPeriod: board.Last7d}, "ann", 50)
	page := newPage(t)
	open(t, page, a.URL+"/b/streak", 200)
	must(t, expect.Locator(page.GetByTestId("period-title")).ToHaveText("Last 7 days"))
	must(t, expect.Locator(page.Locator(`.tabs a[aria-current="page"]`)).ToHaveText("Last 7 days"))
	must(t, expect.Locator(page.GetByTestId("period-note")).ToContainText("today and the 6 days before"))
	must(t, expect.Locator(page.GetByTestId("prev")).ToHaveCount(0))
	waitLive(t, page)
	items := page.GetByTestId("recent").Locator("li")
	must(t, expect.Locator(items).ToHaveCount(1))
	sub := board.Submission{Member: "bob", Name: "Bob", Score: 70}
	if _, err := a.store.Submit(context.Background(), "streak", sub, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"Bob", "ann"}))
	must(t, expect.Locator(items).ToHaveCount(2))
	must(t, expect.Locator(items.First()).ToContainText("Bob"))

	// The last 24 hours is a tab of its own, live as well.
	must(t, page.Locator(".tabs").GetByText("Last 24 hours").Click())
	must(t, expect.Locator(page.GetByTestId("period-title")).ToHaveText("Last 24 hours"))
	must(t, expect.Locator(page.GetByTestId("period-note")).ToContainText("the current hour and the 23 before it"))
	waitLive(t, page)
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"Bob", "ann"}))
}
