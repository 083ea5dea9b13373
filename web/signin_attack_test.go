package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"podium/internal/webtest"
	"podium/web/request"
)

// TestOrgSignInIsNoOneElse: a verified address that Unicode would fold into
// a console user's name (the Kelvin sign K for k) is not that user: the
// person gets no console, let alone the site admin's.
func TestOrgSignInIsNoOneElse(t *testing.T) {
	f, m := orgFixture(t)
	if err := f.Admin.Accounts.Create(t.Context(), "kate@school.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	c, end, code := orgSignIn(t, f, m, person("\u212Aate@school.example", true), "/admin")
	if code == http.StatusSeeOther && end == "/admin" {
		if status, body := get(t, c, f.URL+"/admin/users"); status == http.StatusOK || strings.Contains(body, "kate@school.example") {
			t.Errorf("someone whose address only folds to kate's is in kate's console: %d %q", status, webtest.Excerpt(body))
		}
	}
}

// TestOrgSignInErrorNeedsItsState: the provider's error answer counts only
// with the state of the sign-in this browser began; a made-up one (a link
// with words of someone else's choosing) shows none of its words, and the
// sign-in under way ends (as after any answer that is not its own). A
// refused sign-in's "Sign in again" keeps the whole page to come back to.
func TestOrgSignInErrorNeedsItsState(t *testing.T) {
	f, _ := orgFixture(t)
	c := stepper(t)
	next := "/b/open?period=week&limit=5"
	hop(t, c, f.URL+"/auth/login?next="+url.QueryEscape(next))
	res, err := c.Get(f.URL + "/auth/callback?error=access_denied&error_description=" + url.QueryEscape("Your account is locked: call 555-0100"))
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, res)
	if res.StatusCode != http.StatusBadRequest || strings.Contains(body, "Your account is locked") {
		t.Errorf("an error answer without the state: %d %q", res.StatusCode, webtest.Excerpt(body))
	}
	// The provider's own refusal, with the state: said, with a way back to
	// the page the sign-in began on.
	to, _ := hop(t, c, f.URL+"/auth/login?next="+url.QueryEscape(next))
	st := mustQuery(t, to).Get("state")
	res, err = c.Get(f.URL + "/auth/callback?error=access_denied&error_description=denied&state=" + url.QueryEscape(st))
	if err != nil {
		t.Fatal(err)
	}
	body = readAll(t, res)
	want := `href="/auth/login?next=` + url.QueryEscape(next) + `"`
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, strings.ReplaceAll(want, "&", "&amp;")) {
		t.Errorf("the provider's refusal: %d, want 401 with %s in %q", res.StatusCode, want, webtest.Excerpt(body))
	}
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// The header's "Sign in" on a sign-in's own answer does not lead back to
// that answer (its code and state).
func TestOrgSignInHeaderLeavesTheCallback(t *testing.T) {
	f, _ := orgFixture(t)
	res, body := f.Get("/auth/callback?code=abc&state=xyz")
	if res.StatusCode != http.StatusBadRequest || strings.Contains(body, "next=%2Fauth") || !strings.Contains(body, `href="/auth/login?next=%2F"`) {
		t.Errorf("a callback without its cookie: %d %q", res.StatusCode, webtest.Excerpt(body))
	}
}

// TestOrgSignInDropsTheOldConsoleCookie: a browser that still holds the
// session cookie of path /admin that versions before board roles set (the
// browser sends it first to the console) loses it when it signs in with the
// organisation or signs out on the pages, so the console is not left signed
// in as whoever that cookie was.
func TestOrgSignInDropsTheOldConsoleCookie(t *testing.T) {
	f, m := orgFixture(t)
	if err := f.Admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"sign-in", "sign-out"} {
		old, err := f.Admin.Sessions.Create(t.Context(), "alice", "192.0.2.1", "test")
		if err != nil {
			t.Fatal(err)
		}
		admin, _ := url.Parse(f.URL + "/admin/")
		legacy := []*http.Cookie{{Name: request.SessionCookie, Value: old, Path: "/admin"}}
		c := stepper(t)
		if step == "sign-in" {
			c.Jar.SetCookies(admin, legacy)
		}
		c, _, code := orgSignInWith(t, c, f, m, person("ann@school.example", true), "/")
		if code != http.StatusSeeOther {
			t.Fatalf("%s: sign-in %d", step, code)
		}
		if step == "sign-out" {
			c.Jar.SetCookies(admin, legacy)
			req, _ := http.NewRequest(http.MethodPost, f.URL+"/auth/logout", nil)
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			res, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
		}
		for _, ck := range c.Jar.Cookies(admin) {
			if ck.Name == request.SessionCookie && ck.Value == old {
				t.Errorf("after the %s the console still gets the old /admin cookie", step)
			}
		}
	}
}
