package e2e

import (
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"podium/board"
)

// TestTVCyclesLive: the wall display shows one board at a time, live, moves
// to the next by itself, and shows a clock and when the screen changed.
func TestTVCyclesLive(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	arcade := a.board(board.Board{ID: "arcade", Title: "Arcade", TieBreak: board.ByMember}, "ann", 50, "bob", 40)
	a.board(board.Board{ID: "golf", Title: "Golf", TieBreak: board.ByMember}, "cat", 70)
	page := newPage(t)
	must(t, page.SetViewportSize(1920, 1080))
	open(t, page, a.URL+"/tv?boards=arcade,golf&every=5", 200)
	screens := page.GetByTestId("tv-screen")
	first, second := screens.Nth(0), screens.Nth(1)
	must(t, expect.Locator(first).ToBeVisible())
	must(t, expect.Locator(second).ToBeHidden())
	waitLive(t, first)
	must(t, expect.Locator(page.GetByTestId("tv-clock")).ToHaveText(regexp.MustCompile(`\d{1,2}:\d{2}`)))
	must(t, expect.Locator(page.GetByTestId("tv-updated")).ToHaveText(regexp.MustCompile(`^Updated `)))

	a.zincrby(arcade, 20, "bob") // 60: bob leads
	must(t, expect.Locator(first.GetByTestId("name")).ToHaveText([]string{"bob", "ann"}))

	// After every=5 seconds the next board shows, already live.
	must(t, expect.Locator(second).ToBeVisible(playwright.LocatorAssertionsToBeVisibleOptions{Timeout: playwright.Float(20_000)}))
	must(t, expect.Locator(first).ToBeHidden())
	waitLive(t, second)
	must(t, expect.Locator(second.GetByTestId("name")).ToHaveText([]string{"cat"}))
	// The type is sized for a room: a name at least 30 px tall at 1080p.
	h, err := second.GetByTestId("name").First().Evaluate(`el => parseFloat(getComputedStyle(el).fontSize)`, nil)
	must(t, err)
	if size := h.(float64); size < 30 {
		t.Fatalf("names are %.0f px on a 1080p wall display; want 30 or more", size)
	}
}
