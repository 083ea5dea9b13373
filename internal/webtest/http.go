package webtest

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// Get asks the server for path with the given header name, value pairs,
// following no redirect, and returns the answer with its body read (and
// unzipped).
func (f *Server) Get(path string, hdr ...string) (*http.Response, string) {
	f.T.Helper()
	return Get(f.T, f.URL+path, hdr...)
}

// Get is Server.Get of any address.
func Get(t testing.TB, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var r io.Reader = res.Body
	if res.Header.Get("Content-Encoding") == "gzip" {
		if r, err = gzip.NewReader(res.Body); err != nil {
			t.Fatal(err)
		}
	}
	body, _ := io.ReadAll(r)
	return res, string(body)
}

// Record has h answer r, without a network.
func Record(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

var tagRe = regexp.MustCompile(`<[^>]+>`)

// Excerpt is the start of a page's text, without its tags, for a
// failure's message.
func Excerpt(body string) string {
	s := strings.Join(strings.Fields(tagRe.ReplaceAllString(body, " ")), " ")
	if len(s) > 600 {
		s = s[:600]
	}
	return s
}

// Unescape undoes the HTML escapes templ writes.
func Unescape(s string) string {
	return strings.NewReplacer("&#34;", `"`, "&#39;", "'", "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(s)
}
