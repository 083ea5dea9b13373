package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"podium/access"
	"podium/board"
	"podium/internal/webtest"
)

// signedInAs is a console browser signed in as a new user; role on b, or a
// site admin when b is nil.
func signedInAs(t *testing.T, f *webtest.Server, user string, role access.Role, b *board.Board) *webtest.Browser {
	t.Helper()
	create := f.Admin.Accounts.CreateBoardUser
	if b == nil {
		create = f.Admin.Accounts.Create
	}
	if err := create(t.Context(), user, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if b != nil && role != access.NoRole {
		if err := f.Admin.Grants.Set(t.Context(), user, b.ID, role, b.Created); err != nil {
			t.Fatal(err)
		}
	}
	a := f.Browser()
	if res := a.Login(user, "correct horse battery"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login of %s: %d", user, res.StatusCode)
	}
	a.Get("/admin") // its CSRF token
	return a
}

// consoleNeeds is what each console route needs: a role on the board in its
// path, or "site" (a site admin), or "" (any signed-in user). A route not
// listed fails TestEveryConsoleRouteNeedsItsRole, so none goes unchecked.
var consoleNeeds = map[string]string{
	"GET /admin/boards/:board":                      "viewer",
	"GET /admin/boards/:board/live":                 "scorekeeper",
	"POST /admin/boards/:board/score":               "scorekeeper",
	"GET /admin/boards/:board/held":                 "scorekeeper",
	"POST /admin/boards/:board/held/:id/approve":    "scorekeeper",
	"POST /admin/boards/:board/held/:id/reject":     "scorekeeper",
	"POST /admin/boards/:board/remove":              "scorekeeper",
	"POST /admin/boards/:board/reset":               "scorekeeper",
	"POST /admin/boards/:board/rename":              "scorekeeper",
	"POST /admin/boards/:board/team":                "scorekeeper",
	"POST /admin/boards/:board/segment":             "scorekeeper",
	"POST /admin/boards/:board/freeze":              "scorekeeper",
	"POST /admin/boards/:board/unfreeze":            "scorekeeper",
	"POST /admin/boards/:board/reveal":              "scorekeeper",
	"GET /admin/boards/:board/edit":                 "owner",
	"GET /admin/boards/:board/data":                 "owner",
	"GET /admin/boards/:board/erase":                "owner",
	"POST /admin/boards/:board/erase":               "owner",
	"POST /admin/boards/:board/edit":                "owner",
	"GET /admin/boards/:board/delete":               "owner",
	"POST /admin/boards/:board/delete":              "owner",
	"GET /admin/boards/:board/hooks":                "owner",
	"POST /admin/boards/:board/hooks":               "owner",
	"POST /admin/boards/:board/hooks/:id/:action":   "owner",
	"GET /admin/boards/:board/sharing":              "owner",
	"POST /admin/boards/:board/links":               "owner",
	"POST /admin/boards/:board/links/:id/revoke":    "owner",
	"POST /admin/boards/:board/personal":            "owner",
	"POST /admin/boards/:board/personal/revoke":     "owner",
	"POST /admin/boards/:board/embed":               "owner",
	"POST /admin/boards/:board/embed/off":           "owner",
	"GET /admin/boards/:board/people":               "owner",
	"POST /admin/boards/:board/people":              "owner",
	"POST /admin/boards/:board/people/:user/revoke": "owner",
	"POST /admin/boards/:board/allow":               "owner",
	"GET /admin/boards/new":                         "site",
	"POST /admin/boards/new":                        "site",
	"GET /admin/keys":                               "site",
	"POST /admin/keys":                              "site",
	"POST /admin/keys/:id/revoke":                   "site",
	"GET /admin/users":                              "site",
	"POST /admin/users":                             "site",
	"POST /admin/users/:user/kind":                  "site",
	"POST /admin/users/:user/delete":                "site",
	"GET /admin":                                    "",
	"GET /admin/":                                   "",
	"GET /admin/audit":                              "",
	"GET /admin/sessions":                           "",
	"POST /admin/sessions/others":                   "",
	"POST /admin/sessions/:id/end":                  "",
	"POST /admin/logout":                            "",
	"GET /admin/login":                              "",
	"POST /admin/login":                             "",
}

// TestEveryConsoleRouteNeedsItsRole walks the router's console routes with
// a user of each role: a board user without a role on the board finds no
// board there (404, as an unknown board), one whose role is too weak gets a
// 403 page naming the role needed, and one whose role suffices gets past
// the check (whatever the handler then says of the empty form). Nothing a
// refused request sends is written.
func TestEveryConsoleRouteNeedsItsRole(t *testing.T) {
	f := webtest.New(t)
	b := f.Board(board.Board{ID: "class", Title: "Class 4B", Visibility: board.Private}, map[string]float64{"ann": 5})
	other := f.Board(board.Board{ID: "other", Title: "Other"}, nil)
	users := []struct {
		name string
		role access.Role
		on   *board.Board
		rank int // 0 none, 1 viewer, 2 scorekeeper, 3 owner, 4 site admin
	}{
		{"stranger", access.Owner, other, 0},
		{"viewer", access.Viewer, b, 1},
		{"keeper", access.Scorekeeper, b, 2},
		{"owner", access.Owner, b, 3},
		{"root", access.NoRole, nil, 4},
	}
	ranks := map[string]int{"": 0, "viewer": 1, "scorekeeper": 2, "owner": 3, "site": 4}
	browsers := map[string]*webtest.Browser{}
	for _, u := range users {
		browsers[u.name] = signedInAs(t, f, u.name, u.role, u.on)
	}
	seen := map[string]bool{}
	for _, r := range f.App.Server.Routes() {
		if !strings.HasPrefix(r.Path, "/admin") || (r.Method != http.MethodGet && r.Method != http.MethodPost) {
			continue
		}
		key := r.Method + " " + r.Path
		need, ok := consoleNeeds[key]
		if !ok {
			t.Errorf("console route %s: not in consoleNeeds; say which role it needs", key)
			continue
		}
		seen[key] = true
		if r.Path == "/admin/login" || r.Path == "/admin/logout" || strings.HasPrefix(r.Path, "/admin/sessions") {
			continue // no board, no role: every signed-in user's own
		}
		path := strings.NewReplacer(":board", "class", ":id", "nope", ":action", "test", ":user", "nobody").Replace(r.Path)
		for _, u := range users {
			a := browsers[u.name]
			var res *http.Response
			var body string
			if r.Method == http.MethodGet {
				res, body = a.Get(path)
			} else {
				res, body = a.Post(path, url.Values{"csrf": {a.CSRF}})
			}
			onBoard := strings.Contains(r.Path, ":board")
			switch {
			case onBoard && u.rank == 0 && need != "site":
				ghost := strings.Replace(path, "/class", "/ghost", 1)
				var want *http.Response
				var wantBody string
				if r.Method == http.MethodGet {
					want, wantBody = a.Get(ghost)
				} else {
					want, wantBody = a.Post(ghost, url.Values{"csrf": {a.CSRF}})
				}
				if res.StatusCode != http.StatusNotFound || want.StatusCode != http.StatusNotFound ||
					strings.ReplaceAll(body, "“class”", "“ghost”") != wantBody {
					t.Errorf("%s as %s (no role on it): %d %q, want the unknown board's 404 %q", key, u.name, res.StatusCode, webtest.Excerpt(body), webtest.Excerpt(wantBody))
				}
			case u.rank < ranks[need]:
				if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "Not allowed") {
					t.Errorf("%s as %s: %d %q, want 403 Not allowed", key, u.name, res.StatusCode, webtest.Excerpt(body))
				}
			default:
				if strings.Contains(body, "Not allowed") || strings.Contains(body, "Board not found") {
					t.Errorf("%s as %s (allowed): %d %q", key, u.name, res.StatusCode, webtest.Excerpt(body))
				}
			}
		}
	}
	for key := range consoleNeeds {
		if !seen[key] {
			t.Errorf("consoleNeeds lists %s, which is no route", key)
		}
	}
	if pg, _ := f.Store.Page(t.Context(), b, board.Period{Kind: board.AllTime}, 0, 5); pg.Total != 1 {
		t.Errorf("the board changed: %d members", pg.Total)
	}
}
