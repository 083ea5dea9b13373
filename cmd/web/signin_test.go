package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"podium/access"
	"podium/internal/redistest"
)

// browserFrom signs in to base as a browser behind the trusted proxy that
// says it is at addr.
type browserFrom struct {
	t      *testing.T
	base   string
	addr   string
	client *http.Client
}

func newBrowser(t *testing.T, base, addr string) *browserFrom {
	jar, _ := cookiejar.New(nil)
	return &browserFrom{t: t, base: base, addr: addr, client: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browserFrom) do(method, path string, form url.Values) *http.Response {
	b.t.Helper()
	req, _ := http.NewRequest(method, b.base+path, strings.NewReader(form.Encode()))
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("X-Forwarded-For", b.addr)
	req.Header.Set("User-Agent", "signin-test from "+b.addr)
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	return res
}

func (b *browserFrom) signIn(user, pass string) *http.Response {
	b.t.Helper()
	res := b.do("GET", "/admin/login", nil)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	token := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(page))
	if token == nil {
		b.t.Fatal("the sign-in form has no token")
	}
	res = b.do("POST", "/admin/login", url.Values{"user": {user}, "password": {pass}, "csrf": {token[1]}})
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// TestSignInPolicy drives the real server's sign-in form from several client
// addresses (through a trusted proxy's X-Forwarded-For): a stranger's wrong
// guesses lock out only the stranger's address, the admin signs in from their
// own, and a 5 MB user name leaves nothing big in Redis or in the log.
func TestSignInPolicy(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	s := serve(t, nil, map[string]string{
		"REDIS_URL": "redis://" + srv.Addr, "TRUST_PROXY": "true", "ADMIN_USER": "alice", "ADMIN_PASSWORD": "correct horse battery",
	})
	defer func() {
		if err := s.stop(); err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	base := s.base

	stranger := newBrowser(t, base, "203.0.113.9")
	for i := range 5 {
		if res := stranger.signIn("alice", "a wrong guess"); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong guess %d: %d", i+1, res.StatusCode)
		}
	}
	res := stranger.signIn("alice", "correct horse battery")
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("the right password from the locked address: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	admin := newBrowser(t, base, "198.51.100.7")
	if res := admin.signIn("alice", "correct horse battery"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin" {
		t.Fatalf("the admin from their own address while a stranger is locked out: %d", res.StatusCode)
	}
	if res := admin.do("GET", "/admin", nil); res.StatusCode != http.StatusOK {
		t.Fatalf("the admin's session: %d", res.StatusCode)
	}
	rdb := srv.Client(t)
	list, err := access.NewSessions(rdb).List(context.Background(), "alice")
	if err != nil || len(list) != 1 || list[0].Addr != "198.51.100.7" || list[0].UserAgent != "signin-test from 198.51.100.7" {
		t.Fatalf("the admin's sessions: %+v %v", list, err)
	}

	// A 5 MB user name is refused before it is read (console bodies are
	// bounded), and one just under the body limit like any wrong name; neither
	// costs a large key or log line.
	huge := newBrowser(t, base, "192.0.2.77")
	if res := huge.signIn(strings.Repeat("a", 5<<20), "a wrong guess"); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a 5 MB user name: %d", res.StatusCode)
	}
	if res := huge.signIn(strings.Repeat("a", 60<<10), "a wrong guess"); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a 60 KB user name: %d", res.StatusCode)
	}
	keys, err := rdb.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if size := rdb.MemoryUsage(context.Background(), k).Val(); len(k) > 100 || size > 1000 {
			t.Errorf("key %.100q (%d bytes) uses %d bytes", k, len(k), size)
		}
	}
	longest := 0
	for line := range strings.Lines(s.log.String()) {
		longest = max(longest, len(line))
	}
	if longest > 2000 {
		t.Errorf("the longest log line is %d bytes", longest)
	}
}
