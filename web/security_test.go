package web_test

import (
	"crypto/tls"
	"net/http/httptest"
	"strings"
	"testing"

	"podium/app"
	"podium/board"
	"podium/internal/webtest"
	"podium/web"
)

func TestSecurityHeaders(t *testing.T) {
	f := webtest.New(t, webtest.Configure(func(c *app.Config) { c.EmbedOrigins = []string{"https://blog.example.com", "https://news.example.org"} }))
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	for _, path := range []string{"/", "/b/chess", "/b/nope", "/b/chess/m/x"} {
		res, _ := f.Get(path)
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") || res.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s may be framed: CSP %q, XFO %q", path, csp, res.Header.Get("X-Frame-Options"))
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("%s: missing headers %v", path, res.Header)
		}
	}
	res, _ := f.Get("/embed/chess")
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors https://blog.example.com https://news.example.org") || res.Header.Get("X-Frame-Options") != "" {
		t.Errorf("embed framing: CSP %q XFO %q", csp, res.Header.Get("X-Frame-Options"))
	}
}

// TestHSTS: Strict-Transport-Security only over HTTPS, directly or through a
// trusted proxy; never over plain HTTP, never on a stranger's word.
func TestHSTS(t *testing.T) {
	f := webtest.New(t)
	plain := web.New(web.Options{Store: f.Store})
	proxied := web.New(web.Options{Store: f.Store, TrustProxy: true})
	for _, tc := range []struct {
		name  string
		s     *web.Server
		tls   bool
		proto string
		want  bool
	}{
		{"plain http", plain, false, "", false},
		{"tls", plain, true, "", true},
		{"forwarded https, proxy not trusted", plain, false, "https", false},
		{"forwarded https, trusted proxy", proxied, false, "https", true},
		{"forwarded http, trusted proxy", proxied, false, "http", false},
	} {
		r := httptest.NewRequest("GET", "/healthz", nil)
		if tc.tls {
			r.TLS = &tls.ConnectionState{}
		}
		if tc.proto != "" {
			r.Header.Set("X-Forwarded-Proto", tc.proto)
		}
		got := webtest.Record(tc.s, r).Header().Get("Strict-Transport-Security")
		if (got != "") != tc.want {
			t.Errorf("%s: Strict-Transport-Security %q", tc.name, got)
		}
	}
}
