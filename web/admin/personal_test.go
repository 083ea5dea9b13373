package admin_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"podium/audit"
	"podium/board"
	"podium/internal/webtest"
)

var sheetURL = regexp.MustCompile(`http://[^<"]+/s/pvl_[a-z0-9]+_[a-z2-7]{26}`)

// TestPersonalLinksSheet: an owner makes a personal link for every member
// of a board at once and gets a printable sheet, a card a member with the
// link's QR code and address, shown only in that answer; the links are
// listed (never their tokens), audited by member, skipped for members who
// have one unless renewed, refused for bad ids with the field named, and
// revoked all at once.
func TestPersonalLinksSheet(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "class", Title: "Class 4B", Visibility: board.Private, Names: board.Initials}, map[string]float64{"ann": 5, "bob": 3})
	a := f.SignedIn()
	a.Get("/admin/boards/class/sharing")
	res, sheet := a.Post("/admin/boards/class/personal", url.Values{"csrf": {a.CSRF}, "for": {"every"}, "expires": {"365d"}})
	if res.StatusCode != http.StatusCreated || strings.Count(sheet, `data-testid="sheet-card"`) != 2 || strings.Count(sheet, `data-testid="qr"`) != 2 {
		t.Fatalf("the sheet: %d %s", res.StatusCode, webtest.Excerpt(sheet))
	}
	urls := sheetURL.FindAllString(sheet, -1)
	if len(urls) != 2 || strings.Contains(sheet, "site-nav") {
		t.Fatalf("%d addresses on the sheet, or the console's navigation: %v", len(urls), urls)
	}
	_, page := a.Get("/admin/boards/class/sharing")
	if strings.Count(page, `data-testid="personal-row"`) != 2 || sheetURL.MatchString(page) || !strings.Contains(page, "Every member with a score now (2)") {
		t.Fatalf("the sharing page after: %s", webtest.Excerpt(page))
	}
	entries, _, err := f.Admin.Audit.List(t.Context(), audit.Filter{Board: "class"}, "", 20)
	if err != nil {
		t.Fatal(err)
	}
	created := 0
	for _, e := range entries {
		if e.Action == "link.create" && (e.Member == "ann" || e.Member == "bob") && !strings.Contains(e.After, "pvl_") {
			created++
		}
	}
	if created != 2 {
		t.Fatalf("%d personal links audited: %+v", created, entries)
	}
	// Again: both have one, so nothing is made unless renewed.
	res, body := a.Post("/admin/boards/class/personal", url.Values{"csrf": {a.CSRF}, "for": {"every"}, "expires": {""}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "has a personal link already") {
		t.Fatalf("again: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	res, body = a.Post("/admin/boards/class/personal", url.Values{"csrf": {a.CSRF}, "for": {"list"}, "members": {"ann\n\ncat\nann"}, "expires": {""}})
	if res.StatusCode != http.StatusCreated || strings.Count(body, `data-testid="sheet-card"`) != 1 || !strings.Contains(body, "Left as they were") {
		t.Fatalf("a list with a new member: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	res, body = a.Post("/admin/boards/class/personal", url.Values{"csrf": {a.CSRF}, "for": {"list"}, "members": {"ann", " "}, "renew": {"1"}, "expires": {""}})
	if res.StatusCode != http.StatusCreated || strings.Count(body, `data-testid="sheet-card"`) != 1 {
		t.Fatalf("renewing ann's: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	for name, form := range map[string]url.Values{
		"a bad id":       {"for": {"list"}, "members": {"ok\nbad\u200bid"}, "expires": {""}},
		"no id":          {"for": {"list"}, "members": {"\n \n"}, "expires": {""}},
		"a bad lifetime": {"for": {"every"}, "expires": {"forever"}},
		"no choice":      {"expires": {""}},
	} {
		form.Set("csrf", a.CSRF)
		// One summary, the personal links' form's: the share link form above says nothing.
		if res, body := a.Post("/admin/boards/class/personal", form); res.StatusCode != http.StatusUnprocessableEntity || strings.Count(body, `class="error-summary"`) != 1 ||
			!strings.Contains(body, "No link was made") {
			t.Errorf("%s: %d %s", name, res.StatusCode, webtest.Excerpt(body))
		}
	}
	if links, _ := f.Admin.Links.ListPersonal(t.Context(), "class"); len(links) != 3 {
		t.Fatalf("%d personal links: %+v", len(links), links)
	}
	if msg := a.FlashAfter(a.Post("/admin/boards/class/personal/revoke", url.Values{"csrf": {a.CSRF}})); !strings.Contains(msg, "3 personal links revoked") {
		t.Fatalf("revoke all: %q", msg)
	}
	if links, _ := f.Admin.Links.ListPersonal(t.Context(), "class"); len(links) != 0 {
		t.Fatalf("left after revoking all: %+v", links)
	}
}
