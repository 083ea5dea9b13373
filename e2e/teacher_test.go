package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"
	"github.com/playwright-community/playwright-go"

	podium "podium/app"
	"podium/board"
)

// TestTeacherRunsAPrivateClassBoard is the story of issue 26 in Chromium: a
// site admin makes a class board private, hands out a share link, adds a
// teaching assistant who signs in with the school's accounts (a real
// OpenID provider on a loopback port, through its redirects) and may enter
// scores but not change the board, and lets the school's pupils read it by
// signing in; a stranger finds no board. With FREEZE_SHOTS=<dir> it saves
// each step at 1280 and 390 px, light and dark.
func TestTeacherRunsAPrivateClassBoard(t *testing.T) {
	t.Parallel()
	m, err := mockoidc.Run()
	must(t, err)
	t.Cleanup(func() { m.Shutdown() })
	oc := m.Config()
	n := <-freeDBs
	t.Cleanup(func() { freeDBs <- n })
	rdb := redisSrv.ClientDB(t, n)
	must(t, rdb.FlushDB(context.Background()).Err())
	a := launchConfigured(t, rdb, nil, func(c *podium.Config) {
		c.OIDC = podium.OIDCConfig{Issuer: oc.Issuer, ClientID: oc.ClientID, ClientSecret: oc.ClientSecret,
			Scopes: []string{"openid", "email", "groups"}, GroupsClaim: "groups"}
	})
	a.board(board.Board{ID: "class-4b", Title: "Class 4B", Periods: []board.Kind{board.Weekly, board.AllTime}}, "ada", 12, "bo", 9, "cy", 7)

	// The site admin: private board, a share link, the TA, the allow-list.
	admin := newPage(t)
	signIn(t, admin, a, adminPassword)
	open(t, admin, a.URL+"/admin/boards/class-4b/edit", 200)
	_, err = admin.GetByTestId("visibility").SelectOption(playwright.SelectOptionValues{Values: &[]string{"private"}})
	must(t, err)
	must(t, admin.GetByTestId("save-board").Click())
	must(t, expect.Page(admin).ToHaveURL(regexp.MustCompile(`/admin/boards/class-4b$`)))
	open(t, admin, a.URL+"/admin/boards/class-4b/sharing", 200)
	must(t, admin.GetByTestId("link-name").Fill("Class wall"))
	must(t, admin.GetByTestId("create-link").Click())
	link, err := admin.Locator("#new-link").InputValue()
	must(t, err)
	shoot(t, admin, "teacher-share-link")

	open(t, admin, a.URL+"/admin/users", 200)
	must(t, admin.Locator("#u-user").Fill("ta@school.example"))
	_, err = admin.GetByTestId("user-kind").SelectOption(playwright.SelectOptionValues{Values: &[]string{"board"}})
	must(t, err)
	must(t, admin.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Add user"}).Click())
	must(t, expect.Locator(admin.GetByTestId("flash")).ToHaveText("Board user ta@school.example added."))
	open(t, admin, a.URL+"/admin/boards/class-4b/people", 200)
	must(t, admin.GetByTestId("role-user").Fill("ta@school.example"))
	_, err = admin.GetByTestId("role-role").SelectOption(playwright.SelectOptionValues{Values: &[]string{"scorekeeper"}})
	must(t, err)
	must(t, admin.GetByTestId("give-role").Click())
	must(t, expect.Locator(admin.GetByTestId("flash")).ToHaveText("ta@school.example is now a scorekeeper of this board."))
	must(t, admin.GetByTestId("allow-domains").Fill("school.example"))
	must(t, admin.GetByTestId("save-allow").Click())
	must(t, expect.Locator(admin.GetByTestId("flash")).ToContainText("addresses at school.example"))
	must(t, expect.Locator(admin.GetByTestId("holder-row")).ToContainText("scorekeeper"))
	shoot(t, admin, "teacher-people")

	// The TA signs in with the school's account and enters a score, and
	// nothing else.
	m.QueueUser(&mockoidc.MockUser{Subject: "ta", Email: "ta@school.example", EmailVerified: true})
	ta := newPage(t)
	open(t, ta, a.URL+"/admin", 200) // the sign-in page
	shoot(t, ta, "teacher-signin")
	must(t, ta.GetByTestId("org-signin").Click())
	must(t, expect.Page(ta).ToHaveURL(regexp.MustCompile(`/admin$`)))
	must(t, expect.Locator(ta.GetByTestId("admin-user")).ToHaveText("ta@school.example"))
	must(t, expect.Locator(ta.GetByTestId("board-role")).ToHaveText("scorekeeper"))
	if n, _ := ta.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Users"}).Count(); n != 0 {
		t.Error("a board user's navigation offers Users")
	}
	shoot(t, ta, "teacher-ta-boards")
	open(t, ta, a.URL+"/admin/boards/class-4b", 200)
	form := ta.GetByTestId("score-form")
	must(t, form.Locator("#s-member").Fill("bo"))
	must(t, form.Locator("#s-value").Fill("5"))
	must(t, form.Locator("#s-reason").Fill("quiz 3"))
	must(t, ta.GetByTestId("save-score").Click())
	must(t, expect.Locator(ta.GetByTestId("flash")).ToBeVisible())
	if n, _ := ta.GetByTestId("sharing-link").Count(); n != 0 {
		t.Error("a scorekeeper's board page links to sharing")
	}
	open(t, ta, a.URL+"/admin/boards/class-4b/edit", 403)
	must(t, expect.Locator(ta.Locator("main")).ToContainText("needs the owner role"))
	shoot(t, ta, "teacher-ta-refused")

	// A pupil with the share link reads the board, live; the TA's score is there.
	pupil := newPage(t)
	open(t, pupil, link, 200)
	must(t, expect.Page(pupil).ToHaveURL(regexp.MustCompile(`/b/class-4b$`)))
	must(t, expect.Locator(pupil.GetByTestId("standings")).ToContainText("bo"))
	must(t, expect.Locator(pupil.GetByTestId("row").Filter(playwright.LocatorFilterOptions{HasText: "bo"}).GetByTestId("score")).ToHaveText("14"))
	shoot(t, pupil, "teacher-pupil-link")

	// A stranger finds no board; a pupil of the school signs in and does.
	stranger := newPage(t)
	open(t, stranger, a.URL+"/b/class-4b", 404)
	m.QueueUser(&mockoidc.MockUser{Subject: "pupil", Email: "cy@school.example", EmailVerified: true})
	must(t, stranger.GetByTestId("site-signin").Click())
	must(t, expect.Page(stranger).ToHaveURL(regexp.MustCompile(`/b/class-4b$`)))
	must(t, expect.Locator(stranger.GetByTestId("standings")).ToContainText("ada"))
	must(t, expect.Locator(stranger.GetByTestId("site-signout")).ToBeVisible())
	must(t, stranger.GetByTestId("site-signout").Click())
	open(t, stranger, a.URL+"/b/class-4b", 404)
	if body, _ := stranger.Locator("body").TextContent(); strings.Contains(body, "ada") {
		t.Error("the signed-out page shows a pupil")
	}
}
