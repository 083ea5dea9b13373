package web_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"podium/access"
	"podium/app"
	"podium/internal/webtest"
	"podium/web/request"
)

// orgFixture is the visibility fixture with sign-in with the organisation
// against a real OpenID provider (oauth2-proxy's mockoidc) on a loopback
// port, and the private board's allow-list admitting school.example and the
// group "teachers".
func orgFixture(t *testing.T) (*webtest.Server, *mockoidc.MockOIDC) {
	t.Helper()
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown() })
	cfg := m.Config()
	f := visibilityFixtureWith(t, webtest.Configure(func(c *app.Config) {
		c.OIDC = app.OIDCConfig{Issuer: cfg.Issuer, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
			Scopes: []string{"openid", "email", "groups"}, GroupsClaim: "groups"}
	}))
	a, errs := access.ParseAllowed("school.example", "teachers")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if err := f.Admin.Allow.Set(t.Context(), secretID, f.MustBoard(t, secretID).Created, a); err != nil {
		t.Fatal(err)
	}
	return f, m
}

// stepper is a browser that follows no redirect by itself, so a test sees
// each step of the flow; its cookie jar holds what each site set.
func stepper(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// hop GETs u and returns the answer's Location and status.
func hop(t *testing.T, c *http.Client, u string) (string, int) {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.Header.Get("Location"), res.StatusCode
}

// orgSignIn walks the real redirect flow as user, from /auth/login?next=next
// to the provider and back; it returns the browser and where it ended.
func orgSignIn(t *testing.T, f *webtest.Server, m *mockoidc.MockOIDC, user *mockoidc.MockUser, next string) (*http.Client, string, int) {
	t.Helper()
	return orgSignInWith(t, stepper(t), f, m, user, next)
}

// orgSignInWith is orgSignIn in browser c.
func orgSignInWith(t *testing.T, c *http.Client, f *webtest.Server, m *mockoidc.MockOIDC, user *mockoidc.MockUser, next string) (*http.Client, string, int) {
	t.Helper()
	m.QueueUser(user)
	to, code := hop(t, c, f.URL+"/auth/login?next="+url.QueryEscape(next))
	if code != http.StatusSeeOther || !strings.HasPrefix(to, m.Issuer()) {
		t.Fatalf("login: %d to %q, want the provider", code, to)
	}
	back, code := hop(t, c, to)
	if code != http.StatusFound || !strings.HasPrefix(back, f.URL+"/auth/callback?") {
		t.Fatalf("provider: %d to %q", code, back)
	}
	end, code := hop(t, c, back)
	return c, end, code
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return res.StatusCode, b.String()
}

func person(email string, verified bool, groups ...string) *mockoidc.MockUser {
	return &mockoidc.MockUser{Subject: "sub-" + email, Email: email, EmailVerified: verified, Groups: groups}
}

// TestOrgSignInAdmitsByDomainAndGroup: through the real flow, a person at an
// admitted domain or in an admitted group reads the private board (and the
// home page lists it); anyone else finds it as an unknown board; an
// unverified address is refused before any session exists.
func TestOrgSignInAdmitsByDomainAndGroup(t *testing.T) {
	f, m := orgFixture(t)
	for _, tc := range []struct {
		who   *mockoidc.MockUser
		reads bool
	}{
		{person("Ann@School.Example", true), true},
		{person("carl@elsewhere.example", true, "teachers", "staff"), true},
		{person("bob@elsewhere.example", true, "students"), false},
		{person("eve@mail.school.example", true), false}, // a subdomain is another domain
	} {
		c, end, code := orgSignIn(t, f, m, tc.who, "/b/"+secretID)
		if code != http.StatusSeeOther || end != "/b/"+secretID {
			t.Fatalf("%s: callback %d to %q", tc.who.Email, code, end)
		}
		status, body := get(t, c, f.URL+end)
		unknownStatus, unknown := get(t, c, f.URL+"/b/"+ghostID)
		switch {
		case tc.reads && (status != http.StatusOK || !strings.Contains(body, secretName)):
			t.Errorf("%s: %d %q, want the private board", tc.who.Email, status, webtest.Excerpt(body))
		case !tc.reads && (status != unknownStatus || strings.ReplaceAll(body, secretID, ghostID) != unknown):
			t.Errorf("%s: %d %q, want the unknown board's answer", tc.who.Email, status, webtest.Excerpt(body))
		}
		if _, home := get(t, c, f.URL+"/"); strings.Contains(home, secretText) != tc.reads {
			t.Errorf("%s: home page lists the private board: %v, want %v", tc.who.Email, !tc.reads, tc.reads)
		}
	}
	c, _, code := orgSignIn(t, f, m, person("ann@school.example", false), "/b/"+secretID)
	if code != http.StatusForbidden {
		t.Errorf("an unverified address: %d, want 403", code)
	}
	u, _ := url.Parse(f.URL)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == request.SessionCookie {
			t.Errorf("an unverified address got a session")
		}
	}
}

// TestOrgSignInRefusesForgedOrStaleAnswers: an answer without the state
// cookie this browser got at the start, with another state, or one the
// provider refuses, starts no session; "next" never leaves the site.
func TestOrgSignInRefusesForgedOrStaleAnswers(t *testing.T) {
	f, m := orgFixture(t)
	// Someone else's callback URL, opened in a browser that did not start it.
	c := stepper(t)
	m.QueueUser(person("ann@school.example", true))
	to, _ := hop(t, c, f.URL+"/auth/login?next=/")
	back, _ := hop(t, c, to)
	if _, code := hop(t, stepper(t), back); code != http.StatusBadRequest {
		t.Errorf("a callback in another browser: %d, want 400", code)
	}
	// The right browser, another state.
	forged := strings.Replace(back, "state=", "state=x", 1)
	if _, code := hop(t, c, forged); code != http.StatusBadRequest {
		t.Errorf("a forged state: %d, want 400", code)
	}
	// The state cookie serves once: the real answer after a forged one.
	if _, code := hop(t, c, back); code != http.StatusBadRequest {
		t.Errorf("a second answer to one sign-in: %d, want 400", code)
	}
	// The provider refuses the code.
	c = stepper(t)
	m.QueueUser(person("ann@school.example", true))
	to, _ = hop(t, c, f.URL+"/auth/login?next=/")
	back, _ = hop(t, c, to)
	// Twice: x/oauth2, not told how this provider takes the client's
	// secret, tries the other way after a refusal.
	for range 2 {
		m.QueueError(&mockoidc.ServerError{Code: http.StatusBadRequest, Error: "invalid_grant", Description: "code expired"})
	}
	if loc, code := hop(t, c, back); code != http.StatusUnauthorized {
		t.Errorf("a refused code exchange: %d to %q, want 401", code, loc)
	}
	// The person said no at the provider.
	c = stepper(t)
	to, _ = hop(t, c, f.URL+"/auth/login?next=/")
	st := mustQuery(t, to).Get("state")
	if _, code := hop(t, c, f.URL+"/auth/callback?error=access_denied&state="+st); code != http.StatusUnauthorized {
		t.Errorf("access_denied: %d, want 401", code)
	}
	for _, next := range []string{"//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"} {
		if _, end, code := orgSignIn(t, f, m, person("ann@school.example", true), next); code != http.StatusSeeOther || end != "/" {
			t.Errorf("next=%q: ended at %q (%d), want /", next, end, code)
		}
	}
}

func mustQuery(t *testing.T, u string) url.Values {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Query()
}

// TestOrgSignInToTheConsole: a person whose address is a console account's
// name is signed in as that account (a scorekeeper here, without a
// password); anyone else has no console. An account without a password
// never signs in with one.
func TestOrgSignInToTheConsole(t *testing.T) {
	f, m := orgFixture(t)
	ctx := t.Context()
	if err := f.Admin.Accounts.CreateBoardUser(ctx, "ta@school.example", access.NoPassword); err != nil {
		t.Fatal(err)
	}
	if err := f.Admin.Grants.Set(ctx, "ta@school.example", secretID, access.Scorekeeper, f.MustBoard(t, secretID).Created); err != nil {
		t.Fatal(err)
	}
	c, end, _ := orgSignIn(t, f, m, person("ta@school.example", true), "/admin")
	if end != "/admin" {
		t.Fatalf("ended at %q", end)
	}
	status, body := get(t, c, f.URL+"/admin")
	if status != http.StatusOK || !strings.Contains(body, secretText) || !strings.Contains(body, "scorekeeper") {
		t.Errorf("the console of ta: %d %q", status, webtest.Excerpt(body))
	}
	if status, _ := get(t, c, f.URL+"/admin/users"); status != http.StatusForbidden {
		t.Errorf("a board user on the users page: %d", status)
	}
	c, _, _ = orgSignIn(t, f, m, person("ann@school.example", true), "/admin")
	if status, body := get(t, c, f.URL+"/admin"); status != http.StatusForbidden || !strings.Contains(body, "No console account") {
		t.Errorf("someone without an account in the console: %d %q", status, webtest.Excerpt(body))
	}
	if err := f.Admin.Accounts.Verify(ctx, "ta@school.example", ""); err == nil {
		t.Error("an account without a password signed in with an empty one")
	}
	if err := f.Admin.Accounts.CreateBoardUser(ctx, "nobody", access.NoPassword); err == nil {
		t.Error("an account without a password and without an address was made")
	}
}

// TestOrgSignInAllowListChangesCount: taking a domain off the list closes
// the live socket of a person it admitted (within the guard's interval and
// the list's half-second cache), and the board answers as unknown.
func TestOrgSignInAllowListChangesCount(t *testing.T) {
	f, m := orgFixture(t)
	c, _, _ := orgSignIn(t, f, m, person("ann@school.example", true), "/")
	u, _ := url.Parse(f.URL)
	var cookie string
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == request.SessionCookie {
			cookie = ck.Name + "=" + ck.Value
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ws := dialLive(ctx, t, f, cookie)
	defer ws.CloseNow()
	// Another replica's list: this server's cache does not hear of it.
	if err := access.NewAllowLists(f.Redis).Set(ctx, secretID, f.MustBoard(t, secretID).Created, access.Allow{Groups: []string{"teachers"}}); err != nil {
		t.Fatal(err)
	}
	waitClosedByGuard(ctx, t, ws)
	if status, _ := get(t, c, f.URL+"/b/"+secretID); status != http.StatusNotFound {
		t.Errorf("after the list changed: %d", status)
	}
}
