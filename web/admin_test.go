package web

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"podium/board"
)

// adminClient is a browser-like client: cookies, no redirects followed, and
// the CSRF token of the last page it read.
type adminClient struct {
	t    *testing.T
	f    *apiFixture
	http *http.Client
	csrf string
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (f *apiFixture) adminClient() *adminClient {
	jar, _ := cookiejar.New(nil)
	return &adminClient{t: f.t, f: f, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (a *adminClient) get(path string) (*http.Response, string) {
	a.t.Helper()
	res, err := a.http.Get(a.f.api.URL + path)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if m := csrfRe.FindStringSubmatch(string(b)); m != nil {
		a.csrf = m[1]
	}
	return res, string(b)
}

func (a *adminClient) post(path string, form url.Values, hdr ...string) (*http.Response, string) {
	a.t.Helper()
	req, _ := http.NewRequest("POST", a.f.api.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := a.http.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if m := csrfRe.FindStringSubmatch(string(b)); m != nil {
		a.csrf = m[1]
	}
	return res, string(b)
}

func (a *adminClient) login(user, pass string) *http.Response {
	a.t.Helper()
	a.get("/admin/login")
	res, _ := a.post("/admin/login", url.Values{"user": {user}, "password": {pass}, "csrf": {a.csrf}, "next": {"/admin"}})
	return res
}

func TestAdminSessionsAndHeaders(t *testing.T) {
	f := newAPIFixture(t, 1000, 1000)
	if err := f.admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a := f.adminClient()
	if res, _ := a.get("/admin"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/admin/login?next=") {
		t.Fatalf("signed out: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	res := a.login("alice", "correct horse battery")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin" {
		t.Fatalf("login: %d", res.StatusCode)
	}
	var sess *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "podium_session" && c.Value != "" {
			sess = c
		}
	}
	if sess == nil || !sess.HttpOnly || sess.SameSite != http.SameSiteLaxMode || sess.Secure {
		t.Fatalf("session cookie %+v (plain HTTP: not Secure)", sess)
	}
	page, body := a.get("/admin")
	if page.StatusCode != 200 || page.Header.Get("Cache-Control") != "no-store" || !strings.Contains(page.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") || page.Header.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("admin page %d headers %v", page.StatusCode, page.Header)
	}
	if !strings.Contains(body, "alice") {
		t.Fatal("admin page does not show who is signed in")
	}
	// No token, a wrong token, a foreign Origin: refused, nothing written.
	f.board(board.Board{ID: "chess", Title: "Chess"}, nil)
	for _, tc := range []struct {
		form url.Values
		hdr  []string
	}{
		{url.Values{"member": {"x"}, "op": {"set"}, "value": {"1"}, "reason": {"r"}}, nil},
		{url.Values{"member": {"x"}, "op": {"set"}, "value": {"1"}, "reason": {"r"}, "csrf": {strings.Repeat("a", 64)}}, nil},
		{url.Values{"member": {"x"}, "op": {"set"}, "value": {"1"}, "reason": {"r"}, "csrf": {a.csrf}}, []string{"Origin", "https://evil.example"}},
		{url.Values{"member": {"x"}, "op": {"set"}, "value": {"1"}, "reason": {"r"}, "csrf": {a.csrf}}, []string{"Sec-Fetch-Site", "cross-site"}},
	} {
		if res, _ := a.post("/admin/boards/chess/score", tc.form, tc.hdr...); res.StatusCode != 403 {
			t.Fatalf("forged post %v %v: %d", tc.form, tc.hdr, res.StatusCode)
		}
	}
	if pg, _ := f.store.Page(t.Context(), mustGet(t, f, "chess"), board.Period{Kind: board.AllTime}, 0, 5); pg.Total != 0 {
		t.Fatal("a forged post wrote")
	}
	a.get("/admin/boards/chess")
	if res, _ := a.post("/admin/boards/chess/score", url.Values{"member": {"x"}, "op": {"set"}, "value": {"7"}, "reason": {"ok"}, "csrf": {a.csrf}}, "Origin", f.api.URL); res.StatusCode != 303 {
		t.Fatalf("a real post: %d", res.StatusCode)
	}
	// Logout ends the session server-side.
	a.get("/admin")
	a.post("/admin/logout", url.Values{"csrf": {a.csrf}})
	if res, _ := a.get("/admin"); res.StatusCode != http.StatusSeeOther {
		t.Fatal("still signed in after logout")
	}
	replay := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("GET", f.api.URL+"/admin", nil)
	req.AddCookie(sess)
	if res, err := replay.Do(req); err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the old cookie still works: %v %v", res.StatusCode, err)
	}
}

func mustGet(t *testing.T, f *apiFixture, id string) *board.Board {
	b, err := f.store.Board(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return &b
}

func TestAdminLoginLockout(t *testing.T) {
	f := newAPIFixture(t, 1000, 1000)
	f.admin.Limiter.LoginSlowAfter = 100 // keep the test quick
	f.admin.Accounts.Create(t.Context(), "bob", "correct horse battery")
	a := f.adminClient()
	for range 5 {
		if res := a.login("bob", "nope nope nope"); res.StatusCode != 401 {
			t.Fatalf("wrong password: %d", res.StatusCode)
		}
	}
	res := a.login("bob", "correct horse battery")
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("locked account with the right password: %d", res.StatusCode)
	}
	// The login form itself needs its token.
	b := f.adminClient()
	if res, _ := b.post("/admin/login", url.Values{"user": {"bob"}, "password": {"x"}}); res.StatusCode != 403 {
		t.Fatalf("login without its form token: %d", res.StatusCode)
	}
}

func TestAdminSecureCookieBehindTLSProxy(t *testing.T) {
	f := newAPIFixture(t, 1000, 1000)
	f.admin.Accounts.Create(t.Context(), "carol", "correct horse battery")
	s := New(Options{Store: f.store, Admin: f.admin, TrustProxy: true, Logger: quietLog})
	req := httptestRequest("GET", "/admin/login", nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	rec := serve(s, req)
	if c := rec.Result().Cookies(); len(c) == 0 || !c[0].Secure {
		t.Fatalf("cookie behind a TLS proxy: %+v", c)
	}
	req = httptestRequest("GET", "/admin/login", nil)
	req.TLS = &tls.ConnectionState{}
	if c := serve(s, req).Result().Cookies(); len(c) == 0 || !c[0].Secure {
		t.Fatalf("cookie over TLS: %+v", c)
	}
	plain := New(Options{Store: f.store, Admin: f.admin, Logger: quietLog}) // proxy not trusted: the header means nothing
	req = httptestRequest("GET", "/admin/login", nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	if c := serve(plain, req).Result().Cookies(); len(c) == 0 || c[0].Secure {
		t.Fatalf("untrusted header made the cookie Secure: %+v", c)
	}
}

func TestAdminKeysUsersAndConfirmations(t *testing.T) {
	f := newAPIFixture(t, 1000, 1000)
	f.admin.Accounts.Create(t.Context(), "alice", "correct horse battery")
	f.board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Daily, board.AllTime}}, map[string]float64{"ann": 3})
	a := f.adminClient()
	a.login("alice", "correct horse battery")
	a.get("/admin/keys")
	res, body := a.post("/admin/keys", url.Values{"name": {"scoreboard bot"}, "board": {"chess"}, "csrf": {a.csrf}})
	secret := regexp.MustCompile(`pdm_[a-z0-9]+_[A-Za-z0-9_-]+`).FindString(body)
	if res.StatusCode != 201 || secret == "" {
		t.Fatalf("create key: %d", res.StatusCode)
	}
	if _, again := a.get("/admin/keys"); strings.Contains(again, secret) {
		t.Fatal("the secret is shown twice")
	}
	if status, _, _ := f.call("POST", "/api/v1/boards/chess/scores", secret, `{"member":"bob","score":1}`); status != 200 {
		t.Fatalf("the new key does not work: %d", status)
	}
	id := strings.Split(secret, "_")[1]
	a.post("/admin/keys/"+id+"/revoke", url.Values{"csrf": {a.csrf}})
	if status, _, _ := f.call("POST", "/api/v1/boards/chess/scores", secret, `{"member":"bob","score":1}`); status != 401 {
		t.Fatalf("revoked key: %d", status)
	}
	// Reset needs the typed board id.
	a.get("/admin/boards/chess")
	day := "day:" + f.store.Now().UTC().Format("2006-01-02")
	if res, body := a.post("/admin/boards/chess/reset", url.Values{"period": {day}, "confirm": {"yes"}, "reason": {"r"}, "csrf": {a.csrf}}); res.StatusCode != 422 || !strings.Contains(body, "type chess to confirm") {
		t.Fatalf("reset without confirmation: %d", res.StatusCode)
	}
	if res, _ := a.post("/admin/boards/chess/reset", url.Values{"period": {day}, "confirm": {"chess"}, "reason": {"new day"}, "csrf": {a.csrf}}); res.StatusCode != 303 {
		t.Fatalf("reset: %d", res.StatusCode)
	}
	if pg, _ := f.store.Page(t.Context(), mustGet(t, f, "chess"), board.Period{Kind: board.AllTime}, 0, 5); pg.Total != 2 {
		t.Fatalf("reset of today touched all time: %d", pg.Total)
	}
	// Delete needs it too.
	a.get("/admin/boards/chess/delete")
	if res, _ := a.post("/admin/boards/chess/delete", url.Values{"confirm": {"Chess"}, "csrf": {a.csrf}}); res.StatusCode != 422 {
		t.Fatalf("delete with a wrong confirmation: %d", res.StatusCode)
	}
	// Admins: the last one stays; a new one can sign in.
	a.get("/admin/users")
	if res, _ := a.post("/admin/users/alice/delete", url.Values{"csrf": {a.csrf}}); res.StatusCode != 409 {
		t.Fatalf("removing the last admin: %d", res.StatusCode)
	}
	if res, body := a.post("/admin/users", url.Values{"user": {"dave"}, "password": {"short"}, "csrf": {a.csrf}}); res.StatusCode != 422 || !strings.Contains(body, "at least 10 characters") {
		t.Fatalf("short password: %d", res.StatusCode)
	}
	a.post("/admin/users", url.Values{"user": {"dave"}, "password": {"dave's long password"}, "csrf": {a.csrf}})
	dave := f.adminClient()
	if res := dave.login("dave", "dave's long password"); res.StatusCode != 303 {
		t.Fatalf("new admin login: %d", res.StatusCode)
	}
	// Removing an admin ends their sessions.
	a.get("/admin/users")
	if res, body := a.post("/admin/users/dave/delete", url.Values{"csrf": {a.csrf}}); res.StatusCode != 303 {
		t.Fatalf("remove dave: %d %s", res.StatusCode, excerpt(body))
	}
	if res, _ := dave.get("/admin"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a removed admin's session still works: %d", res.StatusCode)
	}
}
