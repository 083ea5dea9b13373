package web_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"podium/board"
	"podium/internal/webtest"
	"podium/live"
	"podium/web"
	"podium/web/pages"
	"podium/web/static"
)

func TestStatusCodes(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}, map[string]float64{"ann": 10, "bob": 7})
	tests := []struct {
		path   string
		status int
		says   string
	}{
		{"/", 200, "Chess"},
		{"/b/chess", 200, "ann"},
		{"/b/chess?period=week", 200, "Week 1, 4–10 Jan 2027"},
		{"/b/chess?period=week&at=2026-W53", 200, "Week 53, 28 Dec 2026 – 3 Jan 2027"},
		{"/b/nope", 404, "There is no board called “nope”."},
		{"/b/chess?period=day", 404, "Chess has no “day” period"},
		{"/b/chess?period=hour", 404, "Period not found"},
		{"/b/chess?period=week&at=2026-W54", 404, "outside weeks 1-53 of 2026"},
		{"/b/chess?period=week&at=next-week", 404, "is not an ISO week like 2026-W47"},
		{"/b/chess?size=0", 400, "size must be a whole number from 1 to 100"},
		{"/b/chess?page=x", 400, "page must be a whole number"},
		{"/b/chess?page=3", 404, "Chess has 1 page"},
		{"/b/chess?q=an", 200, "1 match for “an”"},
		{"/b/chess/around/ann", 200, "1st of 2"},
		{"/b/chess/around/ghost", 404, "“ghost” has no score in All time of Chess."},
		{"/b/chess/around/ann?k=99", 400, "k must be a whole number from 1 to 25"},
		{"/b/chess/m/bob", 200, "2nd"},
		{"/b/chess/m/ghost", 404, "“ghost” has no score on Chess"},
		{"/embed/chess", 200, "Full board on Podium"},
		{"/embed/chess?theme=pink", 400, "theme must be light or dark"},
		{"/embed/chess?limit=500", 400, "limit must be a whole number from 1 to 50"},
		{"/embed/nope", 404, "There is no board called “nope”."},
		{"/nowhere", 404, "Page not found"},
		{"/healthz", 200, "ok"},
		{"/readyz", 200, "ok"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			res, body := f.Get(tc.path)
			if res.StatusCode != tc.status || !strings.Contains(body, tc.says) {
				t.Fatalf("GET %s: %d, want %d with %q in:\n%s", tc.path, res.StatusCode, tc.status, tc.says, webtest.Excerpt(body))
			}
			if ct := res.Header.Get("Content-Type"); tc.path != "/healthz" && tc.path != "/readyz" && !strings.HasPrefix(ct, "text/html") {
				t.Fatalf("content type %q", ct)
			}
		})
	}
	f.Redis.Close() // the app's Redis goes away
	if res, _ := f.Get("/readyz"); res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("readyz with Redis down: %d", res.StatusCode)
	}
}

func TestStaticAssets(t *testing.T) {
	f := webtest.New(t)
	path := static.Path("app.css")
	if !regexp.MustCompile(`^/static/app\.[0-9a-f]{10}\.css$`).MatchString(path) {
		t.Fatalf("path %q has no content hash", path)
	}
	res, body := f.Get(path)
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") || res.Header.Get("ETag") == "" || !strings.Contains(body, ".standings") {
		t.Fatalf("static: %d %v", res.StatusCode, res.Header)
	}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/css") {
		t.Fatalf("content type %q", res.Header.Get("Content-Type"))
	}
	if res, _ := f.Get(path, "If-None-Match", res.Header.Get("ETag")); res.StatusCode != http.StatusNotModified {
		t.Fatalf("conditional get: %d", res.StatusCode)
	}
	for _, p := range []string{"/static/app.css", "/static/app.0000000000.css", "/static/../go.mod"} {
		if res, _ := f.Get(p); res.StatusCode != 404 {
			t.Fatalf("%s: %d", p, res.StatusCode)
		}
	}
	_, home := f.Get("/")
	if !strings.Contains(home, path) {
		t.Fatal("pages do not link the hashed stylesheet")
	}
}

func TestGzipAndHead(t *testing.T) {
	f := webtest.New(t)
	scores := map[string]float64{}
	for _, m := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		scores["player-"+m] = float64(len(scores))
	}
	f.Board(board.Board{ID: "big", Title: "Big"}, scores)
	res, body := f.Get("/b/big", "Accept-Encoding", "gzip")
	if res.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(body, "player-j") {
		t.Fatalf("no gzip: %v", res.Header)
	}
	req, _ := http.NewRequest(http.MethodHead, f.URL+"/b/big", nil)
	hres, err := http.DefaultClient.Do(req)
	if err != nil || hres.StatusCode != 200 {
		t.Fatalf("HEAD: %v %v", hres, err)
	}
	hres.Body.Close()
}

// brokenStore reads boards with an error that is nobody's fault but ours.
type brokenStore struct{ pages.Store }

var errBroken = errors.New("decode board definition: unexpected field \"x\"")

func (brokenStore) Boards(context.Context) ([]board.Board, error) { return nil, errBroken }
func (brokenStore) Board(_ context.Context, id string) (board.Board, error) {
	return board.Board{}, fmt.Errorf("board %q: %w", id, errBroken)
}

// TestServerErrorPage: an unexpected failure is a 500 page in the site's
// style that says nothing internal, and its cause is logged.
func TestServerErrorPage(t *testing.T) {
	var logs strings.Builder
	f := webtest.New(t)
	s := web.New(web.Options{Store: brokenStore{f.Store}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	h := httptest.NewServer(s)
	t.Cleanup(h.Close)
	for _, path := range []string{"/", "/b/chess", "/embed/chess"} {
		res, err := http.Get(h.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 500 || !strings.Contains(string(body), "Something went wrong") || strings.Contains(string(body), "unexpected field") || res.Header.Get("Retry-After") != "" {
			t.Fatalf("%s: %d\n%s", path, res.StatusCode, webtest.Excerpt(string(body)))
		}
	}
	if !strings.Contains(logs.String(), "level=ERROR msg=\"request failed\"") || !strings.Contains(logs.String(), "unexpected field") {
		t.Fatalf("cause not logged:\n%s", logs.String())
	}
}

// fakeLive stands in for the hub where only the page side is under test.
type fakeLive struct {
	specs []live.Spec
	addrs []string
}

func (f *fakeLive) Serve(w http.ResponseWriter, r *http.Request, spec live.Spec, origins []string, addr string, _ func(context.Context) error) {
	f.specs = append(f.specs, spec)
	f.addrs = append(f.addrs, addr)
	w.WriteHeader(http.StatusSwitchingProtocols)
}
func (f *fakeLive) Stats() live.Stats { return live.Stats{Clients: 3, Frames: 42, Polling: true} }

func TestLiveEndpointChecksTheViewAndMetrics(t *testing.T) {
	f := webtest.New(t)
	fl := &fakeLive{}
	s := web.New(web.Options{Store: f.Store, Live: fl, MetricsToken: "s3cret", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptest.NewServer(s)
	t.Cleanup(h.Close)
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}, map[string]float64{"ann": 1})
	for _, tc := range []struct {
		query  string
		status int
	}{
		{"board=nope", 404},
		{"board=chess&period=day", 404},
		{"board=chess&period=week&at=2026-W99", 404},
		{"board=chess&limit=0", 400},
		{"board=chess&member=%0A", 422}, // a member id the board refuses, as everywhere (request.Classify)
		{"board=chess&member=ann&radius=500", 400},
		{"board=chess&period=week&at=2026-W52&offset=25&limit=25", 101},
		{"board=chess&member=ann&radius=3", 101},
		{"board=chess&period=all&offset=37&limit=25", 101}, // snapped to its page, offset 25
	} {
		res, err := http.Get(h.URL + "/live?" + tc.query)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.status {
			t.Errorf("/live?%s: %d, want %d", tc.query, res.StatusCode, tc.status)
		}
	}
	want := []live.Spec{ // a reader without a role sees what the board shows the shared surfaces
		{Board: "chess", Kind: board.Weekly, Key: "2026-W52", Offset: 25, Limit: 25, Shared: true},
		{Board: "chess", Kind: board.AllTime, Member: "ann", Radius: 3, Shared: true},
		{Board: "chess", Kind: board.AllTime, Offset: 25, Limit: 25, Shared: true},
	}
	if !reflect.DeepEqual(fl.specs, want) {
		t.Fatalf("specs %+v", fl.specs)
	}
	for _, a := range fl.addrs { // the client's address alone: a port would make every socket its own
		if a != "127.0.0.1" {
			t.Fatalf("the hub was given the client address %q, want 127.0.0.1", a)
		}
	}
	// Metrics reveal traffic: on the public address only with the token.
	for _, auth := range []string{"", "Bearer wrong", "s3cret"} {
		req, _ := http.NewRequest("GET", h.URL+"/metrics", nil)
		req.Header.Set("Authorization", auth)
		if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 401 {
			t.Fatalf("metrics with %q: %v %v", auth, res.StatusCode, err)
		}
	}
	req, _ := http.NewRequest("GET", h.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("metrics with the token: %v %v", res.StatusCode, err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res := webtest.Record(web.New(web.Options{Store: f.Store, Live: fl}), httptest.NewRequest("GET", "/metrics", nil)); res.Code != 404 {
		t.Fatalf("metrics without a token on the public address: %d", res.Code)
	}
	for name, m := range map[string]families{"on the public address": parseMetrics(t, body), "on their own listener": scrape(t, s.MetricsHandler())} {
		if m.value(t, "podium_live_clients") != 3 || m.value(t, "podium_live_frames_total") != 42 || m.value(t, "podium_live_polling") != 1 ||
			m.metric(t, "podium_live_dropped_total", dto.MetricType_COUNTER) == nil {
			t.Fatalf("live metrics %s: %v %v %v", name, m["podium_live_clients"], m["podium_live_frames_total"], m["podium_live_polling"])
		}
		// The upgrades above: counted, with the refusals, but not timed.
		if m.value(t, "podium_http_requests_total", "route", "/live", "code", "101") != 3 || m.value(t, "podium_http_requests_total", "route", "/live", "code", "404") != 3 ||
			m.observations(t, "podium_http_request_duration_seconds", "route", "/live") != 6 {
			t.Fatalf("/live requests %s: %v %v", name, m["podium_http_requests_total"], m["podium_http_request_duration_seconds"])
		}
	}
	// Live pages say which view to stream; without a hub they do not.
	res, err = http.Get(h.URL + "/b/chess?period=week")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(page), `data-live="board=chess&amp;limit=25&amp;offset=0&amp;period=week&amp;recent=1"`) {
		t.Fatalf("board page has no live view:\n%s", webtest.Excerpt(string(page)))
	}
	if plain := webtest.Record(web.New(web.Options{Store: f.Store, Logger: webtest.Quiet}), httptest.NewRequest("GET", "/b/chess", nil)); strings.Contains(plain.Body.String(), "data-live=") {
		t.Fatal("a server without a hub renders live attributes")
	}
}
