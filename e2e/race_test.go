package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/playwright-community/playwright-go"

	"podium/board"
)

// TestRaceChartLive: the board page links to the race; a write draws its
// member's line on the open chart without a reload, the table of points
// grows with it, and the keyboard's focus stays on the table's toggle.
// Shown at 390 px in the dark scheme, the page does not scroll sideways
// and passes axe-core. With RACE_SHOTS set to a folder, it saves both
// ways as screenshots there, to look at.
func TestRaceChartLive(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "ctf", Title: "Midnight CTF 2026", Periods: []board.Kind{board.Weekly, board.AllTime}},
		"ann", 100, "bob", 250, "cat", 175)
	a.scores("ctf", a.store, "ann", 300, "bob", 400)
	shots := os.Getenv("RACE_SHOTS")
	save := func(page playwright.Page, name string) {
		if shots != "" {
			if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(shots, name+".png")), FullPage: playwright.Bool(true)}); err != nil {
				t.Error(err)
			}
		}
	}

	page := newPage(t)
	open(t, page, a.URL+"/b/ctf?period=week", 200)
	must(t, page.GetByTestId("race-link").Click())
	waitLive(t, page)
	lines := page.GetByTestId("race-line")
	must(t, expect.Locator(lines).ToHaveCount(3))
	must(t, expect.Locator(page.GetByTestId("race-svg")).ToHaveAttribute("data-points", "5"))
	_, err := page.Evaluate(`() => { window.__sameDocument = true }`)
	must(t, err)
	toggle := page.Locator("summary[data-race-focus=points]")
	must(t, toggle.Focus())
	must(t, page.Keyboard().Press("Enter")) // opens the table of points
	must(t, expect.Locator(page.GetByTestId("race-row")).ToHaveCount(5))

	a.scores("ctf", a.store, "dan", 500)
	must(t, expect.Locator(lines).ToHaveCount(4))
	must(t, expect.Locator(page.GetByTestId("race-row")).ToHaveCount(6))
	must(t, expect.Locator(page.GetByTestId("race-row").First()).ToContainText("dan"))
	same, err := page.Evaluate(`() => window.__sameDocument === true`)
	must(t, err)
	if same != true {
		t.Fatal("the page reloaded to show the new point")
	}
	focused, err := page.Evaluate(`() => document.activeElement && document.activeElement.getAttribute("data-race-focus")`)
	must(t, err)
	if focused != "points" {
		t.Errorf("focus after the chart was drawn again: %v, want the table's toggle", focused)
	}
	save(page, "race-1280-light")

	phone := tourPage(t, variant{390, true}, mustAxe(t))
	open(t, phone, a.URL+"/b/ctf/race?period=week", 200)
	settle(t, phone)
	must(t, expect.Locator(phone.GetByTestId("race-line")).ToHaveCount(4))
	if w := measureWidth(t, phone); w.Scroll > w.Viewport {
		t.Errorf("the race at 390 px is %d px wide: widest %s", w.Scroll, w.Widest)
		snap(t, phone, "race-390px")
	}
	if vs := runAxe(t, phone); len(vs) > 0 {
		t.Errorf("the race at 390 px, dark: %d axe-core rule(s) failed:\n%s", len(vs), describe(vs))
	}
	save(phone, "race-390-dark")
}

// mustAxe is axe-core's script, for tourPage's init script.
func mustAxe(t *testing.T) string {
	t.Helper()
	src, _ := axeSource(t)
	return src
}
