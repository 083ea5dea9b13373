package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"podium/audit"
	"podium/board"
	"podium/internal/webtest"
)

// TestConsoleTeams: the console turns teams on, puts members in teams with a
// score or on their own, says where a member is, and refuses bad input
// inline; every change is in the audit log.
func TestConsoleTeams(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	_, page := a.Get("/admin/boards/new")
	if !strings.Contains(page, `name="teams"`) {
		t.Fatal("the new-board form has no team setting")
	}
	form := boardForm(a.CSRF)
	form.Set("teams", "sum")
	if msg := a.FlashAfter(a.Post("/admin/boards/new", form)); msg != "Board created." {
		t.Fatalf("create: %q", msg)
	}
	_, page = a.Get("/admin/boards/quiz")
	if !strings.Contains(page, `data-testid="team-form"`) || !strings.Contains(page, `id="s-team"`) {
		t.Fatal("the board page has no team form")
	}
	score := url.Values{"csrf": {a.CSRF}, "member": {"ann"}, "op": {"incr"}, "value": {"5"}, "team": {"Red Dragons"}, "reason": {"round 1"}}
	a.FlashAfter(a.Post("/admin/boards/quiz/score", score))
	score.Set("member", "bob")
	score.Set("team", "")
	a.FlashAfter(a.Post("/admin/boards/quiz/score", score))
	team := url.Values{"csrf": {a.CSRF}, "member": {"bob"}, "team": {"Red Dragons"}, "reason": {"transfer"}}
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/team", team)); msg != "bob is now in Red Dragons." {
		t.Fatalf("join: %q", msg)
	}
	b, _ := f.Store.Board(t.Context(), "quiz")
	pg, err := f.Store.TeamPage(t.Context(), &b, b.Current(board.AllTime, f.Store.Now()), 0, 10)
	if err != nil || len(pg.Entries) != 1 || pg.Entries[0].Member != "Red Dragons" || pg.Entries[0].Score != 10 {
		t.Fatalf("teams %+v %v", pg.Entries, err)
	}
	_, page = a.Get("/admin/boards/quiz?member=bob")
	if !strings.Contains(page, "bob is in Red Dragons.") {
		t.Fatal("the looked-up member's team is not shown")
	}
	team.Set("team", strings.Repeat("x", 65))
	res, body := a.Post("/admin/boards/quiz/team", team)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `href="#t-team"`) {
		t.Fatalf("a long team: %d", res.StatusCode)
	}
	team.Set("team", "")
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/team", team)); msg != "bob left Red Dragons." {
		t.Fatalf("leave: %q", msg)
	}
	entries, _, _ := f.Admin.Audit.List(t.Context(), audit.Filter{Board: "quiz"}, "", 10)
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
	}
	// Newest first: bob left, bob joined, bob's score, ann's score and her
	// joining with it.
	if got := strings.Join(actions, " "); !strings.HasPrefix(got, "member.team member.team score.incr score.incr member.team") {
		t.Fatalf("audit actions %s", got)
	}
}
