package admin_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"podium/app"
	"podium/board"
	"podium/internal/webtest"
	"podium/web"
)

func TestAdminSessionsAndHeaders(t *testing.T) {
	f := webtest.New(t)
	if err := f.Admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a := f.Browser()
	if res, _ := a.Get("/admin"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/admin/login?next=") {
		t.Fatalf("signed out: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	res := a.Login("alice", "correct horse battery")
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
	page, body := a.Get("/admin")
	if page.StatusCode != 200 || page.Header.Get("Cache-Control") != "no-store" || !strings.Contains(page.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") || page.Header.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("admin page %d headers %v", page.StatusCode, page.Header)
	}
	if !strings.Contains(body, "alice") {
		t.Fatal("admin page does not show who is signed in")
	}
	// No token, a wrong token, a foreign Origin: refused, nothing written.
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	for _, tc := range []struct {
		form url.Values
		hdr  []string
	}{
		{url.Values{"member": {"x"}, "op": {"set"}, "value": {"1"}, "reason": {"r"}}, nil},
		{url.Values{"member": {"x"}, "op": {"set"}, "value": {"1"}, "reason": {"r"}, "csrf": {strings.Repeat("a", 64)}}, nil},
		{url.Values{"member": {"x"}, "op": {"set"}, "value": {"1"}, "reason": {"r"}, "csrf": {a.CSRF}}, []string{"Origin", "https://evil.example"}},
		{url.Values{"member": {"x"}, "op": {"set"}, "value": {"1"}, "reason": {"r"}, "csrf": {a.CSRF}}, []string{"Sec-Fetch-Site", "cross-site"}},
	} {
		if res, _ := a.Post("/admin/boards/chess/score", tc.form, tc.hdr...); res.StatusCode != 403 {
			t.Fatalf("forged post %v %v: %d", tc.form, tc.hdr, res.StatusCode)
		}
	}
	if pg, _ := f.Store.Page(t.Context(), f.MustBoard(t, "chess"), board.Period{Kind: board.AllTime}, 0, 5); pg.Total != 0 {
		t.Fatal("a forged post wrote")
	}
	a.Get("/admin/boards/chess")
	if res, _ := a.Post("/admin/boards/chess/score", url.Values{"member": {"x"}, "op": {"set"}, "value": {"7"}, "reason": {"ok"}, "csrf": {a.CSRF}}, "Origin", f.URL); res.StatusCode != 303 {
		t.Fatalf("a real post: %d", res.StatusCode)
	}
	// Logout ends the session server-side.
	a.Get("/admin")
	a.Post("/admin/logout", url.Values{"csrf": {a.CSRF}})
	if res, _ := a.Get("/admin"); res.StatusCode != http.StatusSeeOther {
		t.Fatal("still signed in after logout")
	}
	replay := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("GET", f.URL+"/admin", nil)
	req.AddCookie(sess)
	if res, err := replay.Do(req); err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the old cookie still works: %v %v", res.StatusCode, err)
	}
}

func TestAdminLoginLockout(t *testing.T) {
	f := webtest.New(t)
	f.Admin.Limiter.LoginSlowAfter = 100 // keep the test quick
	f.Admin.Accounts.Create(t.Context(), "bob", "correct horse battery")
	a := f.Browser()
	for range 5 {
		if res := a.Login("bob", "nope nope nope"); res.StatusCode != 401 {
			t.Fatalf("wrong password: %d", res.StatusCode)
		}
	}
	res := a.Login("bob", "correct horse battery")
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("locked account with the right password: %d", res.StatusCode)
	}
	// The login form itself needs its token.
	b := f.Browser()
	if res, _ := b.Post("/admin/login", url.Values{"user": {"bob"}, "password": {"x"}}); res.StatusCode != 403 {
		t.Fatalf("login without its form token: %d", res.StatusCode)
	}
}

func TestAdminSecureCookieBehindTLSProxy(t *testing.T) {
	f := webtest.New(t, webtest.Configure(func(c *app.Config) { c.TrustProxy = true }))
	f.Admin.Accounts.Create(t.Context(), "carol", "correct horse battery")
	s := f.App.Server
	req := httptest.NewRequest("GET", "/admin/login", nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	rec := webtest.Record(s, req)
	if c := rec.Result().Cookies(); len(c) == 0 || !c[0].Secure {
		t.Fatalf("cookie behind a TLS proxy: %+v", c)
	}
	req = httptest.NewRequest("GET", "/admin/login", nil)
	req.TLS = &tls.ConnectionState{}
	if c := webtest.Record(s, req).Result().Cookies(); len(c) == 0 || !c[0].Secure {
		t.Fatalf("cookie over TLS: %+v", c)
	}
	plain := webtest.New(t, webtest.KeepData()).App.Server // proxy not trusted: the header means nothing
	req = httptest.NewRequest("GET", "/admin/login", nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	if c := webtest.Record(plain, req).Result().Cookies(); len(c) == 0 || c[0].Secure {
		t.Fatalf("untrusted header made the cookie Secure: %+v", c)
	}
}

func TestAdminKeysUsersAndConfirmations(t *testing.T) {
	f := webtest.New(t)
	f.Admin.Accounts.Create(t.Context(), "alice", "correct horse battery")
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Daily, board.AllTime}}, map[string]float64{"ann": 3})
	a := f.Browser()
	a.Login("alice", "correct horse battery")
	a.Get("/admin/keys")
	res, body := a.Post("/admin/keys", url.Values{"name": {"scoreboard bot"}, "board": {"chess"}, "csrf": {a.CSRF}})
	secret := regexp.MustCompile(`pdm_[a-z0-9]+_[A-Za-z0-9_-]+`).FindString(body)
	if res.StatusCode != 201 || secret == "" {
		t.Fatalf("create key: %d", res.StatusCode)
	}
	if _, again := a.Get("/admin/keys"); strings.Contains(again, secret) {
		t.Fatal("the secret is shown twice")
	}
	if status, _, _ := f.Call("POST", "/api/v1/boards/chess/scores", secret, `{"member":"bob","score":1}`); status != 200 {
		t.Fatalf("the new key does not work: %d", status)
	}
	id := strings.Split(secret, "_")[1]
	a.Post("/admin/keys/"+id+"/revoke", url.Values{"csrf": {a.CSRF}})
	if status, _, _ := f.Call("POST", "/api/v1/boards/chess/scores", secret, `{"member":"bob","score":1}`); status != 401 {
		t.Fatalf("revoked key: %d", status)
	}
	// Reset needs the typed board id.
	a.Get("/admin/boards/chess")
	day := "day:" + f.Store.Now().UTC().Format("2006-01-02")
	if res, body := a.Post("/admin/boards/chess/reset", url.Values{"period": {day}, "confirm": {"yes"}, "reason": {"r"}, "csrf": {a.CSRF}}); res.StatusCode != 422 || !strings.Contains(body, "type chess to confirm") {
		t.Fatalf("reset without confirmation: %d", res.StatusCode)
	}
	if res, _ := a.Post("/admin/boards/chess/reset", url.Values{"period": {day}, "confirm": {"chess"}, "reason": {"new day"}, "csrf": {a.CSRF}}); res.StatusCode != 303 {
		t.Fatalf("reset: %d", res.StatusCode)
	}
	if pg, _ := f.Store.Page(t.Context(), f.MustBoard(t, "chess"), board.Period{Kind: board.AllTime}, 0, 5); pg.Total != 2 {
		t.Fatalf("reset of today touched all time: %d", pg.Total)
	}
	// Delete needs it too.
	a.Get("/admin/boards/chess/delete")
	if res, _ := a.Post("/admin/boards/chess/delete", url.Values{"confirm": {"Chess"}, "csrf": {a.CSRF}}); res.StatusCode != 422 {
		t.Fatalf("delete with a wrong confirmation: %d", res.StatusCode)
	}
	// Admins: the last one stays; a new one can sign in.
	a.Get("/admin/users")
	if res, _ := a.Post("/admin/users/alice/delete", url.Values{"csrf": {a.CSRF}}); res.StatusCode != 409 {
		t.Fatalf("removing the last admin: %d", res.StatusCode)
	}
	if res, body := a.Post("/admin/users", url.Values{"user": {"dave"}, "password": {"short"}, "csrf": {a.CSRF}}); res.StatusCode != 422 || !strings.Contains(body, "at least 10 characters") {
		t.Fatalf("short password: %d", res.StatusCode)
	}
	a.Post("/admin/users", url.Values{"user": {"dave"}, "password": {"dave's long password"}, "csrf": {a.CSRF}})
	dave := f.Browser()
	if res := dave.Login("dave", "dave's long password"); res.StatusCode != 303 {
		t.Fatalf("new admin login: %d", res.StatusCode)
	}
	// Removing an admin ends their sessions.
	a.Get("/admin/users")
	if res, body := a.Post("/admin/users/dave/delete", url.Values{"csrf": {a.CSRF}}); res.StatusCode != 303 {
		t.Fatalf("remove dave: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	if res, _ := dave.Get("/admin"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a removed admin's session still works: %d", res.StatusCode)
	}
}

// flakyStore lists boards but cannot read one: Redis went away in between.
type flakyStore struct{ web.Writer }

func (flakyStore) Board(context.Context, string) (board.Board, error) {
	return board.Board{}, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

// TestAdminKeyBoardCheck: creating a key for a board that cannot be read
// because Redis is unreachable is a 503, not "no such board".
func TestAdminKeyBoardCheck(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	if err := f.Admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	adm := *f.Admin
	adm.Store = flakyStore{f.Store}
	h := httptest.NewServer(web.New(web.Options{Store: adm.Store, Admin: &adm, Logger: webtest.Quiet}))
	t.Cleanup(h.Close)
	a := webtest.NewBrowser(t, h.URL)
	a.Login("alice", "correct horse battery")
	a.Get("/admin/keys")
	res, body := a.Post("/admin/keys", url.Values{"name": {"bot"}, "board": {"chess"}, "csrf": {a.CSRF}})
	if res.StatusCode != 503 || strings.Contains(body, "no such board") {
		t.Fatalf("create key with Redis failing: %d\n%s", res.StatusCode, webtest.Excerpt(body))
	}
	if keys, _ := f.Admin.Keys.List(t.Context()); len(keys) != 0 {
		t.Fatalf("a key was created: %v", keys)
	}
}
