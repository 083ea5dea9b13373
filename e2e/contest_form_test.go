package e2e

import (
	"regexp"
	"testing"

	"podium/board"
)

// TestConsoleSetsAContestWindow: in Chromium, the board form's contest
// window is typed in the time zone the form names (which follows the Time
// zone field as it is typed), a close before the opening comes back beside
// its field, and once saved the public page counts down to the opening.
func TestConsoleSetsAContestWindow(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "quiz", Title: "Quiz", Periods: []board.Kind{board.AllTime}})
	page := newPage(t)
	signIn(t, page, a, adminPassword)
	open(t, page, a.URL+"/admin/boards/quiz/edit", 200)
	must(t, expect.Locator(page.Locator("[data-zone-name]")).ToHaveText("UTC"))
	must(t, page.Locator("#time_zone").Fill("Europe/Paris"))
	must(t, expect.Locator(page.Locator("[data-zone-name]")).ToHaveText("Europe/Paris"))

	// testNow is 6 Jan 2027, 12:00 UTC: 13:00 in Paris.
	must(t, page.GetByTestId("opens-at").Fill("2027-01-08T15:00"))
	must(t, page.GetByTestId("closes-at").Fill("2027-01-08T14:00"))
	must(t, page.GetByTestId("save-board").Click())
	must(t, expect.Locator(page.GetByTestId("error-closes_at")).ToHaveText("must come after the opening"))
	must(t, expect.Locator(page.GetByTestId("opens-at")).ToHaveValue("2027-01-08T15:00"))

	must(t, page.GetByTestId("closes-at").Fill("2027-01-08T18:30"))
	must(t, page.GetByTestId("save-board").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/admin/boards/quiz$`)))

	open(t, page, a.URL+"/b/quiz", 200)
	main := page.GetByTestId("countdown-main")
	must(t, expect.Locator(main.Locator("[data-countdown-words]")).ToHaveText(regexp.MustCompile(`^Opens in (2 d 2 h|2 d 1 h)$`)))
	must(t, expect.Locator(main.Locator("time")).ToHaveAttribute("datetime", "2027-01-08T14:00:00Z"))
	must(t, expect.Locator(main.Locator("time")).ToHaveText("8 Jan 2027, 15:00 CET"))
}
