package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"podium/board"
)

// TestLeagueCohortLive: from a member's page, its league links to its
// cohort, whose page moves live when a member's score changes and shows a
// new member its first score placed in the cohort;
// the keyboard focus stays where it was through the frames.
func TestLeagueCohortLive(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "ladder", Title: "Ladder", Periods: []board.Kind{board.Weekly, board.AllTime},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: 4, Promote: 1, Relegate: 1}},
		"ann", 50, "bob", 40, "cat", 30)
	page := newPage(t)
	open(t, page, a.URL+"/b/ladder/m/cat", 200)
	must(t, expect.Locator(page.GetByTestId("member-tier")).ToHaveText("Bronze"))
	must(t, expect.Locator(page.GetByTestId("member-cohort-rank")).ToHaveText("3rd of 3"))
	must(t, page.GetByTestId("member-cohort").Click())
	must(t, page.WaitForURL(regexp.MustCompile(`/b/ladder/leagues/0/1\?period=week$`)))
	waitLive(t, page)
	names := page.GetByTestId("name")
	must(t, expect.Locator(names).ToHaveText([]string{"ann", "bob", "cat"}))
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "bob"}).Focus())

	a.scores("ladder", a.store, "cat", 130)
	must(t, expect.Locator(names).ToHaveText([]string{"cat", "ann", "bob"}))
	must(t, expect.Locator(page.Locator(`tr[data-member="cat"] td.field`)).ToHaveText("1"))
	a.scores("ladder", a.store, "dan", 45)
	must(t, expect.Locator(names).ToHaveText([]string{"cat", "ann", "dan", "bob"}))
	must(t, expect.Locator(page.GetByTestId("count")).ToHaveText("4 members"))
	focused, err := page.Evaluate(`() => document.activeElement && document.activeElement.textContent`)
	must(t, err)
	if focused != "bob" {
		t.Errorf("focus after live frames: %v, want bob's link", focused)
	}
}

// TestLeagueOverview: the league page lists the tiers highest first with
// their cohorts, and fits 1280 px (light) and 390 px (dark) without
// scrolling sideways. With LEAGUE_SHOTS set to a folder, it saves
// each way as a screenshot there, to look at.
func TestLeagueOverview(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "ladder", Title: "Ladder of the Northern Chess Clubs", Periods: []board.Kind{board.Weekly, board.AllTime},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold", "Diamond Masters"}, CohortSize: 2, Promote: 1, Relegate: 1}},
		"ann", 50, "bob", 40, "cat", 30, "dan", 20, "eve", 10)
	shots := os.Getenv("LEAGUE_SHOTS")
	// Width does not depend on the colour scheme (the axe tour checks both
	// schemes' contrast): one of each width.
	for _, v := range []variant{{1280, false}, {390, true}} {
		page := tourPage(t, v, "")
		for _, p := range []struct{ name, path string }{{"leagues", "/b/ladder/leagues"}, {"cohort", "/b/ladder/leagues/0/1"}, {"member", "/b/ladder/m/bob"}} {
			open(t, page, a.URL+p.path, 200)
			settle(t, page)
			if p.name == "leagues" {
				must(t, expect.Locator(page.Locator(".league-tier h2")).ToHaveText([]string{"Diamond Masters", "Gold", "Silver", "Bronze"}))
				must(t, expect.Locator(page.GetByTestId("cohort")).ToHaveCount(3))
			}
			if w := measureWidth(t, page); w.Scroll > w.Viewport {
				t.Errorf("%s at %s is %d px wide: widest %s", p.name, v, w.Scroll, w.Widest)
				snap(t, page, p.name+"-"+v.String())
			}
			if shots != "" {
				path := filepath.Join(shots, p.name+"-"+v.String()+".png")
				if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(path), FullPage: playwright.Bool(true)}); err != nil {
					t.Error(err)
				}
			}
		}
	}
}
