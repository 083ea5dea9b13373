package web_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"podium/access"
	"podium/board"
	"podium/internal/webtest"
	"podium/web/request"
)

// A class board with a privacy mode: only the top two places are shown, as
// pseudonyms. Five pupils, their ids, names and scores unlike anything
// else on a page.
const classID = "class"

var pupils = []struct {
	id, name string
	score    float64
}{
	{"zz-ann", "Annabel Liddell", 5051}, {"zz-bob", "Bobby Bunnyfoot", 4041}, {"zz-cat", "Catherine Cheshire", 3031},
	{"zz-dan", "Daniel Dodo", 2021}, {"zz-eve", "Evelyn Eaglet", 1011},
}

// hidden are what a reader shown the top two as pseudonyms must never see:
// every pupil's id and name, and the scores beyond the top two.
var hidden = []string{"zz-ann", "Annabel", "zz-bob", "Bobby", "zz-cat", "Catherine", "3031", "3,031", "zz-dan", "Daniel", "2021", "2,021",
	"zz-eve", "Evelyn", "1011", "1,011"}

func classFixture(t *testing.T, visibility board.Visibility) *webtest.Server {
	t.Helper()
	f := webtest.New(t, webtest.Archive(), webtest.Live())
	f.Board(board.Board{ID: classID, Title: "Class 4B", Visibility: visibility, Names: board.Pseudonyms, TopOnly: 2, Teams: board.TeamsSum}, nil)
	for _, p := range pupils {
		if _, err := f.Store.Submit(t.Context(), classID, board.Submission{Member: p.id, Name: p.name, Score: p.score, Op: board.Set, Team: "red"}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// classRoutes are the router's routes that read a board, for the class
// board and the pupil dan (beyond the top two).
func classRoutes(t *testing.T, f *webtest.Server) []string {
	var out []string
	for _, p := range boardRoutes(t, f, classID) {
		out = append(out, strings.ReplaceAll(p, "zelda", "zz-dan"))
	}
	return append(out, "/", "/tv", "/b/"+classID+"?q=Dan", "/b/"+classID+"?page=2&size=1", "/embed/"+classID+"?member=zz-dan",
		"/b/"+classID+"/export?format=json", "/api/v1/boards/"+classID+"/entries?offset=2")
}

// TestPrivacyModeOnEverySurface: on a public board that shows only its top
// two as pseudonyms, no answer to a reader without a role (every route
// that reads a board, the home page, the wall display, search, the
// widget, exports, the API without a key) holds a pupil's id or name, or a
// score beyond the top two; the places shown are there, as pseudonyms.
func TestPrivacyModeOnEverySurface(t *testing.T) {
	f := classFixture(t, board.Public)
	for _, path := range classRoutes(t, f) {
		res, body := f.Get(path)
		if keyOnly(path) {
			if res.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s without a key: %d, want 401", path, res.StatusCode)
			}
		} else if strings.Contains(path, "zz-dan") && !strings.HasPrefix(path, "/embed/") && res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404 as for a member without a score", path, res.StatusCode)
		}
		for _, leak := range hidden {
			if strings.Contains(path, leak) {
				continue // the answer may say what was asked
			}
			if strings.Contains(body, leak) {
				t.Errorf("%s (%d) shows %q: %s", path, res.StatusCode, leak, webtest.Excerpt(body))
			}
		}
	}
	_, page := f.Get("/b/" + classID)
	if n := strings.Count(page, `data-testid="row"`); n != 2 || !regexp.MustCompile(`Player [0-9A-F]{4}`).MatchString(page) ||
		!strings.Contains(page, "5,051") || !strings.Contains(page, `data-testid="privacy-note"`) || strings.Contains(page, `data-testid="search"`) ||
		!strings.Contains(page, `data-live-noun="place places"`) || !strings.Contains(page, ">2 places<") {
		t.Errorf("the board page shows %d rows: %s", n, webtest.Excerpt(page))
	}
	// The API without a key: the top two, stand-ins for ids, a total that
	// counts the places shown.
	code, out, _ := f.Call("GET", "/api/v1/boards/"+classID+"/entries", "", "")
	entries, _ := out["entries"].([]any)
	if code != http.StatusOK || len(entries) != 2 || out["total"] != 2.0 || !strings.HasPrefix(entries[0].(map[string]any)["member"].(string), "anon-") {
		t.Errorf("entries without a key: %d %v", code, out)
	}
	// A pseudonym stays the same from one answer to the next.
	_, again, _ := f.Call("GET", "/api/v1/boards/"+classID+"/entries", "", "")
	if again["entries"].([]any)[0].(map[string]any)["name"] != entries[0].(map[string]any)["name"] {
		t.Error("a pseudonym changed between two reads")
	}
	if res, body := f.Get("/b/" + classID + "?q=Ann"); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "cannot be searched by name") {
		t.Errorf("a search of a board that hides names: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
}

// TestPrivacyModeWholeForFullReaders: API keys and signed-in users with a
// role see every pupil by name on the board's pages and the API, but the
// wall display and the widget, shown to others, keep the privacy mode
// whoever opens them.
func TestPrivacyModeWholeForFullReaders(t *testing.T) {
	f := classFixture(t, board.Private)
	code, out, _ := f.Call("GET", "/api/v1/boards/"+classID+"/entries", f.Key("reader", classID), "")
	if entries, _ := out["entries"].([]any); code != http.StatusOK || len(entries) != 5 || !strings.Contains(webtest.Excerpt(toJSON(out)), "Evelyn Eaglet") {
		t.Errorf("entries with a key: %d %v", code, out)
	}
	viewer := viewerOf(t, f)
	if _, body := f.Get("/b/"+classID, viewer...); !strings.Contains(body, "Evelyn Eaglet") || strings.Contains(body, "privacy-note") {
		t.Errorf("the board page of a viewer: %s", webtest.Excerpt(body))
	}
	if res, body := f.Get("/b/"+classID+"/m/zz-eve", viewer...); res.StatusCode != http.StatusOK || !strings.Contains(body, "of 5") {
		t.Errorf("a member page for a viewer: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	// Someone the organisation's sign-in vouches for, admitted by the
	// board's allow-list, reads what a share link reads: the shared view.
	if err := f.Admin.Allow.Set(t.Context(), classID, f.MustBoard(t, classID).Created, access.Allow{Domains: []string{"school.example"}}); err != nil {
		t.Fatal(err)
	}
	token, err := f.Admin.Sessions.CreateFor(t.Context(), access.OrgPrefix+"pupil@school.example", access.Identity{Email: "pupil@school.example"}, "192.0.2.1", "test")
	if err != nil {
		t.Fatal(err)
	}
	pupil := []string{"Cookie", request.SessionCookie + "=" + token}
	if res, body := f.Get("/b/"+classID, pupil...); res.StatusCode != http.StatusOK || !strings.Contains(body, "privacy-note") || strings.Contains(body, "Evelyn Eaglet") {
		t.Errorf("the board page of a pupil admitted by the allow-list: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	for _, shared := range []string{"/tv?boards=" + classID, "/embed/" + classID} {
		res, body := f.Get(shared, viewer...)
		for _, leak := range hidden {
			if strings.Contains(body, leak) {
				t.Errorf("%s for a signed-in viewer (%d) shows %q", shared, res.StatusCode, leak)
			}
		}
	}
}

// viewerOf signs in a board user with the viewer role on the class board.
func viewerOf(t *testing.T, f *webtest.Server) []string {
	t.Helper()
	b := f.MustBoard(t, classID)
	if err := f.Admin.Accounts.CreateBoardUser(t.Context(), "teacher", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if err := f.Admin.Grants.Set(t.Context(), "teacher", classID, 1, b.Created); err != nil {
		t.Fatal(err)
	}
	token, err := f.Admin.Sessions.Create(t.Context(), "teacher", "192.0.2.1", "test")
	if err != nil {
		t.Fatal(err)
	}
	return []string{"Cookie", request.SessionCookie + "=" + token}
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestPersonalLinkShowsItsMember: dan's personal link, on a private board
// that shows only its top two as pseudonyms, opens on dan's own page and
// shows dan whole (name, rank, score, around-me, his place on the board
// page), the top two as pseudonyms, and nothing of cat and eve; another
// pupil's page answers as a member without a score.
func TestPersonalLinkShowsItsMember(t *testing.T) {
	f := classFixture(t, board.Private)
	_, token, err := f.Admin.Links.CreatePersonal(t.Context(), classID, f.MustBoard(t, classID).Created, "zz-dan", "Daniel Dodo", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(f.URL + "/s/" + token)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/b/"+classID+"/m/zz-dan" {
		t.Fatalf("a personal link: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	ck := []string{"Cookie", request.LinkCookie(classID) + "=" + token}
	others := []string{"zz-cat", "Catherine", "3,031", "3031", "zz-eve", "Evelyn", "1,011", "1011", "zz-ann", "Annabel", "zz-bob", "Bobby"}
	for path, want := range map[string]string{
		"/b/" + classID + "/m/zz-dan":                          "Daniel Dodo",
		"/b/" + classID + "/around/zz-dan":                     "4th in All time",
		"/b/" + classID:                                        `data-testid="mine-rank">4th`,
		"/api/v1/boards/" + classID + "/members/zz-dan/around": `"name":"Daniel Dodo"`,
	} {
		res, body := f.Get(path, ck...)
		if res.StatusCode != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("%s: %d, want %q in %s", path, res.StatusCode, want, webtest.Excerpt(body))
		}
		for _, leak := range others {
			if strings.Contains(body, leak) {
				t.Errorf("%s shows %q to dan's link", path, leak)
			}
		}
	}
	res, body := f.Get("/b/"+classID+"/m/zz-ann", ck...)
	_, nobody := f.Get("/b/"+classID+"/m/zz-nob", ck...)
	if res.StatusCode != http.StatusNotFound || strings.ReplaceAll(body, "zz-ann", "zz-nob") != nobody {
		t.Errorf("another pupil's page: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
}

// personalLinks makes personal links of the private board for members, by
// member; the one for "revoked" (zelda's) is revoked at once.
func personalLinks(t *testing.T, f *webtest.Server, members ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	b := f.MustBoard(t, secretID)
	for _, m := range members {
		member := m
		if m == "revoked" {
			member = "zelda"
		}
		l, token, err := f.Admin.Links.CreatePersonal(t.Context(), secretID, b.Created, member, "", "test", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if m == "revoked" {
			if _, err := f.Admin.Links.Revoke(t.Context(), secretID, l.ID); err != nil {
				t.Fatal(err)
			}
		}
		out[m] = token
	}
	return out
}

// keyOnly: a member's data, which only a key that may write to the board
// reads (past the gate, which answers first for a private board).
func keyOnly(path string) bool { return strings.HasSuffix(path, "/data") }

// otherMembersLink: a personal link reads its board, but no other
// member's page (path names zelda; the link is otto's): that answers 404
// exactly as a member without a score does, and shows nothing of zelda.
func otherMembersLink(t *testing.T, f *webtest.Server, path, cookie string) {
	t.Helper()
	res, body := f.Get(path, "Cookie", cookie)
	if keyOnly(path) {
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with a personal link and no key: %d %q, want 401", path, res.StatusCode, webtest.Excerpt(body))
		}
		return
	}
	if !strings.Contains(path, "zelda") {
		if res.StatusCode == http.StatusNotFound {
			t.Errorf("%s with another member's personal link: 404 %q", path, webtest.Excerpt(body))
		}
		return
	}
	want, wantBody := f.Get(strings.ReplaceAll(path, "zelda", "nobod"), "Cookie", cookie)
	if res.StatusCode != http.StatusNotFound || want.StatusCode != http.StatusNotFound || strings.ReplaceAll(body, "zelda", "nobod") != wantBody {
		t.Errorf("%s with another member's personal link: %d %q, want as a member without a score %d %q", path, res.StatusCode, webtest.Excerpt(body), want.StatusCode, webtest.Excerpt(wantBody))
	}
	if strings.Contains(body, secretName) || strings.Contains(body, "4242") {
		t.Errorf("%s with another member's personal link shows zelda", path)
	}
}
