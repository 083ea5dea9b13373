package admin_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"podium/internal/webtest"
)

// TestConsoleRefusesOriginNullAndQueryTokens: a form sent from a page
// without an origin is refused, and a CSRF token in the query string does
// not count (it would sit in logs and Referer headers).
func TestConsoleRefusesOriginNullAndQueryTokens(t *testing.T) {
	f := webtest.New(t)
	if err := f.Admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a := f.Browser()
	a.Login("alice", "correct horse battery")
	a.Get("/admin/users")
	form := url.Values{"user": {"bob"}, "password": {"another long password"}, "csrf": {a.CSRF}}
	if res, _ := a.Post("/admin/users", form, "Origin", "null"); res.StatusCode != 403 {
		t.Errorf("Origin null: %d", res.StatusCode)
	}
	noToken := url.Values{"user": {"bob"}, "password": {"another long password"}}
	if res, _ := a.Post("/admin/users?csrf="+url.QueryEscape(a.CSRF), noToken); res.StatusCode != 403 {
		t.Errorf("token in the query: %d", res.StatusCode)
	}
	if ok, _ := f.Admin.Accounts.Exists(t.Context(), "bob"); ok {
		t.Fatal("a refused form added an admin")
	}
	if res, body := a.Post("/admin/users", noToken, "X-CSRF-Token", a.CSRF); res.StatusCode >= 400 {
		t.Errorf("token in the header: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	if res, _ := a.Post("/admin/users", url.Values{"user": {strings.Repeat("x", 70<<10)}, "csrf": {a.CSRF}}); res.StatusCode != 413 {
		t.Errorf("a 70 KB form: %d", res.StatusCode)
	}
}

// TestFlashMessages: a message after a change is shown once, on the next
// page; ?done= in a link shows nothing; signing out says so.
func TestFlashMessages(t *testing.T) {
	f := webtest.New(t)
	if err := f.Admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a := f.Browser()
	a.Login("alice", "correct horse battery")
	a.Get("/admin/users")
	res, _ := a.Post("/admin/users", url.Values{"user": {"bob"}, "password": {"another long password"}, "csrf": {a.CSRF}})
	if loc := res.Header.Get("Location"); res.StatusCode != 303 || strings.Contains(loc, "done=") {
		t.Fatalf("after adding an admin: %d %q", res.StatusCode, loc)
	}
	flash := regexp.MustCompile(`data-testid="flash">([^<]*)<`)
	_, body := a.Get(res.Header.Get("Location"))
	if m := flash.FindStringSubmatch(body); m == nil || !strings.Contains(m[1], "bob") {
		t.Fatalf("first view after the change shows no message: %v", m)
	}
	if _, body = a.Get("/admin/users"); flash.MatchString(body) {
		t.Fatal("the message was shown twice")
	}
	if _, body = a.Get("/admin/users?done=" + url.QueryEscape("Your account is locked: call +1 555 0100")); flash.MatchString(body) || strings.Contains(body, "555 0100") {
		t.Fatal("a crafted ?done= link put its words on the page")
	}
	// A flash cookie the server did not sign (planted by a sibling site, or
	// on plain HTTP) shows nothing either.
	u, _ := url.Parse(f.URL + "/admin")
	a.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "podium_flash", Value: url.QueryEscape("Call +1 555 0100"), Path: "/admin"}})
	if _, body = a.Get("/admin/users"); flash.MatchString(body) || strings.Contains(body, "555 0100") {
		t.Fatal("an unsigned flash cookie put its words on the page")
	}
	res, _ = a.Post("/admin/logout", url.Values{"csrf": {a.CSRF}})
	_, body = a.Get(res.Header.Get("Location"))
	if m := flash.FindStringSubmatch(body); m == nil || m[1] != "Signed out." {
		t.Fatalf("after signing out: %v", m)
	}
}

// TestSessionsPage: an admin sees their own sessions (where, when, which
// browser), ends one, or all but this one; others' sessions are not theirs.
func TestSessionsPage(t *testing.T) {
	f := webtest.New(t)
	for _, u := range []string{"alice", "bob"} {
		if err := f.Admin.Accounts.Create(t.Context(), u, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	laptop, phone, tablet := f.Browser(), f.Browser(), f.Browser()
	for _, a := range []*webtest.Browser{laptop, phone, tablet} {
		a.Login("alice", "correct horse battery")
	}
	bobs := f.Browser()
	bobs.Login("bob", "correct horse battery")
	res, body := laptop.Get("/admin/sessions")
	if res.StatusCode != 200 || strings.Count(body, `data-testid="session"`) != 3 || strings.Count(body, `data-testid="this-session"`) != 1 ||
		!strings.Contains(body, "127.0.0.1") || !strings.Contains(body, "Go-http-client") {
		t.Fatalf("alice's sessions: %d\n%s", res.StatusCode, webtest.Excerpt(body))
	}
	// End one other session by its id: the phone is signed out.
	ids := regexp.MustCompile(`/admin/sessions/([^/"]+)/end`).FindAllStringSubmatch(body, -1)
	if len(ids) != 2 {
		t.Fatalf("end buttons: %v", ids)
	}
	bobList, _ := f.Admin.Sessions.List(t.Context(), "bob")
	if res, _ := laptop.Post("/admin/sessions/"+bobList[0].ID+"/end", url.Values{"csrf": {laptop.CSRF}}); res.StatusCode != 404 {
		t.Fatalf("ending another admin's session: %d", res.StatusCode)
	}
	laptop.Post("/admin/sessions/"+ids[0][1]+"/end", url.Values{"csrf": {laptop.CSRF}})
	if list, _ := f.Admin.Sessions.List(t.Context(), "alice"); len(list) != 2 {
		t.Fatalf("after ending one: %d sessions", len(list))
	}
	// Sign out everywhere else: only the laptop stays.
	laptop.Get("/admin/sessions")
	laptop.Post("/admin/sessions/others", url.Values{"csrf": {laptop.CSRF}})
	for name, a := range map[string]*webtest.Browser{"phone": phone, "tablet": tablet} {
		if res, _ := a.Get("/admin"); res.StatusCode != 303 {
			t.Errorf("%s still signed in: %d", name, res.StatusCode)
		}
	}
	if res, _ := laptop.Get("/admin"); res.StatusCode != 200 {
		t.Fatalf("the laptop was signed out too: %d", res.StatusCode)
	}
	if res, _ := bobs.Get("/admin"); res.StatusCode != 200 {
		t.Fatalf("bob was signed out by alice: %d", res.StatusCode)
	}
}

// TestKnownDeviceSignsInThroughTheDelay: while strangers keep the
// account-wide delay armed, a browser that signed in before (with the same
// password) still signs in; a stranger's browser waits.
func TestKnownDeviceSignsInThroughTheDelay(t *testing.T) {
	f := webtest.New(t)
	if err := f.Admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	own := f.Browser()
	if res := own.Login("alice", "correct horse battery"); res.StatusCode != 303 {
		t.Fatalf("first sign-in: %d", res.StatusCode)
	}
	own.Post("/admin/logout", url.Values{"csrf": {own.CSRF}})
	lim := f.Admin.Limiter
	for i := range lim.LoginSlowAfter + 2 { // guesses from many other addresses
		lim.LoginFailed(t.Context(), "alice", fmt.Sprintf("10.7.%d.1", i))
	}
	if res := f.Browser().Login("alice", "correct horse battery"); res.StatusCode != 429 {
		t.Fatalf("a stranger's browser during the delay: %d", res.StatusCode)
	}
	if res := own.Login("alice", "correct horse battery"); res.StatusCode != 303 {
		t.Fatalf("the owner's browser during the delay: %d", res.StatusCode)
	}
	// Removed and added again: the old device no longer counts.
	own.Post("/admin/logout", url.Values{"csrf": {own.CSRF}})
	if err := f.Admin.Accounts.Create(t.Context(), "bob", "another long password"); err != nil {
		t.Fatal(err)
	}
	if err := f.Admin.Accounts.Delete(t.Context(), "alice"); err != nil {
		t.Fatal(err)
	}
	if err := f.Admin.Accounts.Create(t.Context(), "alice", "a brand new password"); err != nil {
		t.Fatal(err)
	}
	for i := range lim.LoginSlowAfter + 2 {
		lim.LoginFailed(t.Context(), "alice", fmt.Sprintf("10.8.%d.1", i))
	}
	if res := own.Login("alice", "a brand new password"); res.StatusCode != 429 {
		t.Fatalf("a device of the old account during the delay: %d", res.StatusCode)
	}
}
