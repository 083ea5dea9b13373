package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"podium/board"
)

func signIn(t *testing.T, page playwright.Page, a *app, password string) {
	t.Helper()
	open(t, page, a.URL+"/admin/login", 200)
	must(t, page.Locator("#user").Fill(adminUser))
	must(t, page.Locator("#password").Fill(password))
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Sign in"}).Click())
}

// TestAdminRunsABoardEndToEnd signs in, creates a board, adjusts a score and
// sees the public page change, checks that bad forms and forged posts change
// nothing, reads the audit log, and signs out.
func TestAdminRunsABoardEndToEnd(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	page := newPage(t)

	// Admin pages need a session.
	open(t, page, a.URL+"/admin/audit", 200) // redirected to the login form
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/admin/login\?next=%2Fadmin%2Faudit$`)))

	signIn(t, page, a, "wrong password!")
	must(t, expect.Locator(page.GetByTestId("login-error")).ToHaveText("Wrong user name or password."))
	signIn(t, page, a, adminPassword)
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/admin$`)))
	must(t, expect.Locator(page.GetByTestId("admin-user")).ToHaveText(adminUser))

	// An invalid board form comes back with inline errors and values kept.
	must(t, page.GetByTestId("new-board").Click())
	must(t, page.Locator("#id").Fill("Bad Id"))
	must(t, page.Locator("#time_zone").Fill("Mars/Olympus"))
	must(t, page.GetByTestId("save-board").Click())
	must(t, expect.Locator(page.GetByTestId("form-error")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("error-id")).ToContainText("lower-case letters"))
	must(t, expect.Locator(page.GetByTestId("error-title")).ToHaveText("is required"))
	must(t, expect.Locator(page.GetByTestId("error-time_zone")).ToContainText("not an IANA time zone"))
	must(t, expect.Locator(page.Locator("#id")).ToHaveValue("Bad Id"))
	if bs, _ := a.store.Boards(t.Context()); len(bs) != 0 {
		t.Fatalf("an invalid form created %v", bs)
	}

	// A good one creates the board.
	must(t, page.Locator("#id").Fill("quiz"))
	must(t, page.Locator("#title").Fill("Friday Quiz"))
	must(t, page.Locator("#time_zone").Fill("Europe/Paris"))
	_, err := page.Locator("#rank_style").SelectOption(playwright.SelectOptionValues{Values: &[]string{"dense"}})
	must(t, err)
	must(t, page.GetByTestId("save-board").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/admin/boards/quiz$`)))
	must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("Board created."))

	// Adjust a score, then see it on the public page.
	score := func(member, op, value, reason string) {
		t.Helper()
		form := page.GetByTestId("score-form")
		must(t, form.Locator("#s-member").Fill(member))
		_, err := form.Locator("#s-op").SelectOption(playwright.SelectOptionValues{Values: &[]string{op}})
		must(t, err)
		must(t, form.Locator("#s-value").Fill(value))
		must(t, form.Locator("#s-reason").Fill(reason))
		must(t, page.GetByTestId("save-score").Click())
	}
	score("team-a", "set", "12", "round 1")
	must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("team-a now has 12 (1st)."))
	must(t, expect.Locator(page.GetByTestId("standing-score").First()).ToHaveText("12"))
	score("team-a", "incr", "abc", "typo")
	must(t, expect.Locator(page.GetByTestId("error-s-value")).ToHaveText("must be a number such as 120 or 9.58"))
	must(t, expect.Locator(page.Locator("#s-value")).ToHaveValue("abc"))
	score("team-a", "incr", "1e300", "too much")
	must(t, expect.Locator(page.GetByTestId("error-s-value")).ToContainText("must be within ±9007199254740992"))
	score("team-b", "set", "15", "round 1")

	public := newPage(t)
	open(t, public, a.URL+"/b/quiz", 200)
	must(t, expect.Locator(public.GetByTestId("name")).ToHaveText([]string{"team-b", "team-a"}))
	must(t, expect.Locator(public.GetByTestId("score")).ToHaveText([]string{"15", "12"}))
	waitLive(t, public)
	score("team-a", "incr", "5", "bonus question")
	must(t, expect.Locator(public.GetByTestId("name")).ToHaveText([]string{"team-a", "team-b"})) // live

	// A POST without the CSRF token, with the session cookie, is refused.
	res, err := page.Request().Post(a.URL+"/admin/boards/quiz/score", playwright.APIRequestContextPostOptions{
		Form: map[string]any{"member": "team-b", "op": "set", "value": "999", "reason": "forged"},
	})
	must(t, err)
	if res.Status() != 403 {
		t.Fatalf("POST without CSRF: %d", res.Status())
	}
	// So is a form posted from another site, token or not.
	host := hostPage(t, `<!doctype html><form id="f" method="post" action="`+a.URL+`/admin/boards/quiz/score">
		<input name="member" value="team-b"><input name="op" value="set"><input name="value" value="999"><input name="reason" value="x"></form>
		<script>document.getElementById("f").submit()</script>`)
	_, err = page.Goto(host) // in the admin's own browser, with the session cookie
	must(t, err)
	must(t, page.WaitForURL(a.URL+"/admin/boards/quiz/score"))
	body, err := page.Locator("body").InnerText()
	must(t, err)
	if !strings.Contains(body, "403") {
		t.Fatalf("a cross-site form was not refused:\n%s", body)
	}
	if sts, _ := a.store.Member(t.Context(), mustBoard(t, a, "quiz"), "team-b"); sts[0].Score != 15 {
		t.Fatalf("a refused post changed team-b to %v", sts[0].Score)
	}

	// The audit log shows who changed what, before and after.
	open(t, page, a.URL+"/admin/audit?board=quiz", 200)
	rows := page.GetByTestId("audit-row")
	must(t, expect.Locator(rows).ToHaveCount(4)) // board.create + 3 scores
	first := rows.First()
	must(t, expect.Locator(first).ToContainText("admin:alice"))
	must(t, expect.Locator(first).ToContainText("score.incr"))
	must(t, expect.Locator(first).ToContainText("12 (rank 2)"))
	must(t, expect.Locator(first).ToContainText("17 (rank 1)"))
	must(t, expect.Locator(first).ToContainText("bonus question"))

	// Sign out: the session is gone.
	must(t, page.GetByTestId("logout").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/admin/login`)))
	open(t, page, a.URL+"/admin", 200)
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/admin/login`)))
}

func mustBoard(t *testing.T, a *app, id string) *board.Board {
	t.Helper()
	b, err := a.store.Board(t.Context(), id)
	must(t, err)
	return &b
}
