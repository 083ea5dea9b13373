package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"podium/board"
)

// TestFreezeAndRevealLive: a public board page stays open while an admin
// freezes the board from the console; the page says "Frozen since" without
// a reload, and writes made after the freeze (from the app and from outside)
// do not reach it while the console's live standings show them; the unfreeze
// moves the page's rows to their places, live, with the move arrows, and
// lifts the notice: the contest reveal.
func TestFreezeAndRevealLive(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	b := a.board(board.Board{ID: "contest", Title: "Coding Contest", TieBreak: board.ByMember}, "ann", 50, "bob", 40, "cat", 30, "dan", 20)
	public := newPage(t)
	open(t, public, a.URL+"/b/contest", 200)
	waitLive(t, public)
	names := public.GetByTestId("name")
	must(t, expect.Locator(names).ToHaveText([]string{"ann", "bob", "cat", "dan"}))
	must(t, expect.Locator(public.GetByTestId("frozen")).ToBeHidden())
	_, err := public.Evaluate(`() => { window.stillThisPage = true }`) // gone if the page reloads
	must(t, err)

	console := newPage(t)
	signIn(t, console, a, adminPassword)
	must(t, console.WaitForURL(a.URL+"/admin"))
	open(t, console, a.URL+"/admin/boards/contest", 200)
	waitLive(t, console.GetByTestId("admin-live"))
	shoot(t, console, "console-form")
	must(t, console.GetByTestId("freeze-now").Check())
	must(t, console.GetByTestId("freeze").Click())
	must(t, expect.Locator(console.GetByTestId("flash")).ToHaveText(regexp.MustCompile(`^Frozen: the public sees the standings of `)))
	must(t, expect.Locator(console.GetByTestId("freeze-state")).ToContainText("Frozen since"))
	must(t, expect.Locator(public.GetByTestId("frozen")).ToContainText("Frozen since"))
	shoot(t, console, "console-frozen")

	a.zincrby(b, 100, "dan")           // 120: an outside writer
	a.scores(b.ID, a.store, "cat", 60) // and one through the app
	liveNames := console.GetByTestId("admin-live").GetByTestId("name")
	waitLive(t, console.GetByTestId("admin-live"))
	must(t, expect.Locator(liveNames).ToHaveText([]string{"dan", "cat", "ann", "bob"}))
	must(t, expect.Locator(names).ToHaveText([]string{"ann", "bob", "cat", "dan"}))
	must(t, expect.Locator(public.Locator(`tr[data-member="dan"]`).GetByTestId("score")).ToHaveText("20"))
	shoot(t, public, "board-frozen")

	must(t, console.GetByTestId("unfreeze").Click())
	must(t, expect.Locator(console.GetByTestId("flash")).ToHaveText(regexp.MustCompile(`^Revealed`)))
	must(t, expect.Locator(names).ToHaveText([]string{"dan", "cat", "ann", "bob"}))
	dan := public.Locator(`tr[data-member="dan"]`)
	must(t, expect.Locator(dan.GetByTestId("rank")).ToHaveText("1"))
	must(t, expect.Locator(dan.GetByTestId("move")).ToHaveText("▲3"))
	must(t, expect.Locator(public.GetByTestId("frozen")).ToBeHidden())
	if still, err := public.Evaluate(`() => window.stillThisPage === true`); err != nil || still != true {
		t.Fatalf("the board page reloaded for the reveal: %v %v", still, err)
	}
}

// shoot saves the page at 1280 and 390 px, light and dark, under
// $FREEZE_SHOTS, for a person to look at; without it, nothing.
func shoot(t *testing.T, page playwright.Page, what string) {
	t.Helper()
	dir := os.Getenv("FREEZE_SHOTS")
	if dir == "" {
		return
	}
	for _, v := range []variant{{1280, false}, {1280, true}, {390, false}, {390, true}} {
		show(t, page, v)
		path := filepath.Join(dir, what+"-"+v.String()+".png")
		if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(path), FullPage: playwright.Bool(true)}); err != nil {
			t.Fatal(err)
		}
	}
	show(t, page, variant{width: 1280})
}
