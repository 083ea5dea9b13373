package webtest

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Browser is a browser-like client of the console: cookies, no redirects
// followed, and the CSRF token of the last page it read.
type Browser struct {
	T    testing.TB
	URL  string // of the server
	HTTP *http.Client
	CSRF string
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// NewBrowser is a browser of the server at base, with no cookies yet.
func NewBrowser(t testing.TB, base string) *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{T: t, URL: base, HTTP: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Browser is a new browser of the server.
func (f *Server) Browser() *Browser { return NewBrowser(f.T, f.URL) }

// Get reads path.
func (a *Browser) Get(path string) (*http.Response, string) {
	a.T.Helper()
	res, err := a.HTTP.Get(a.URL + path)
	if err != nil {
		a.T.Fatal(err)
	}
	return a.read(res)
}

// Post sends form to path with the given header name, value pairs.
func (a *Browser) Post(path string, form url.Values, hdr ...string) (*http.Response, string) {
	a.T.Helper()
	req, _ := http.NewRequest("POST", a.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := a.HTTP.Do(req)
	if err != nil {
		a.T.Fatal(err)
	}
	return a.read(res)
}

// read takes the body of res, and the CSRF token in it.
func (a *Browser) read(res *http.Response) (*http.Response, string) {
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if m := csrfRe.FindStringSubmatch(string(b)); m != nil {
		a.CSRF = m[1]
	}
	return res, string(b)
}

// Login signs in through the console's form.
func (a *Browser) Login(user, pass string) *http.Response {
	a.T.Helper()
	a.Get("/admin/login")
	res, _ := a.Post("/admin/login", url.Values{"user": {user}, "password": {pass}, "csrf": {a.CSRF}, "next": {"/admin"}})
	return res
}

// FlashAfter follows a change's redirect and returns the message shown.
func (a *Browser) FlashAfter(res *http.Response, _ string) string {
	a.T.Helper()
	if res.StatusCode != http.StatusSeeOther {
		a.T.Fatalf("change: %d, want 303", res.StatusCode)
	}
	_, body := a.Get(res.Header.Get("Location"))
	m := regexp.MustCompile(`data-testid="flash">([^<]*)<`).FindStringSubmatch(body)
	if m == nil {
		a.T.Fatal("no message after the change")
	}
	return Unescape(m[1])
}

// SignedIn is a console browser signed in as alice, a new admin.
func (f *Server) SignedIn() *Browser {
	f.T.Helper()
	if err := f.Admin.Accounts.Create(f.T.Context(), "alice", "correct horse battery"); err != nil {
		f.T.Fatal(err)
	}
	a := f.Browser()
	if res := a.Login("alice", "correct horse battery"); res.StatusCode != http.StatusSeeOther {
		f.T.Fatalf("login: %d", res.StatusCode)
	}
	return a
}
