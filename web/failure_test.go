package web_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/redistest"
	"podium/internal/webtest"
	"podium/redisstore"
	"podium/web"
	"podium/web/pages"
	"podium/web/request"
)

// logRecorder is a slog handler that keeps every record, to check levels.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r)
	return nil
}
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }

// at lists "LEVEL message" of the records at level or above.
func (l *logRecorder) at(level slog.Level) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.records {
		if r.Level >= level {
			out = append(out, r.Level.String()+" "+r.Message)
		}
	}
	return out
}

func (l *logRecorder) reset() { l.mu.Lock(); l.records = nil; l.mu.Unlock() }

// TestStoreUnavailable: while the private redis-server is stopped, pages, the
// API and the /live handshake answer 503 with Retry-After and say that the data
// store is unavailable; once it is back (empty), a missing board is a 404 again.
func TestStoreUnavailable(t *testing.T) {
	webtest.SilenceRedis()
	rs, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rs.Close)
	// Few retries: each request fails at once (a pooled connection with EOF, or
	// a refused dial) instead of after go-redis's backoff.
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr, MaxRetries: -1, DialerRetries: 1, DialerRetryTimeout: 10 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	// No definition cache: the /live handshake reads only the definition, and
	// this test stops Redis and expects the very next request to notice.
	f := webtest.New(t, webtest.Client(rdb), webtest.Clock(func() time.Time { return webtest.Now }), webtest.StoreOptions(redisstore.WithDefinitionTTL(0)))
	adm := f.Admin
	logs := &logRecorder{}
	fl := &fakeLive{}
	f.Serve(web.New(web.Options{Store: f.Store, Admin: adm, Live: fl, Logger: slog.New(logs)}))
	f.Board(board.Board{ID: "chess", Title: "Chess"}, map[string]float64{"ann": 3})
	key := f.Key("ops", "")
	if err := adm.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a := f.Browser()
	if res := a.Login("alice", "correct horse battery"); res.StatusCode != 303 {
		t.Fatalf("login: %d", res.StatusCode)
	}

	rs.Stop()
	logs.reset()
	for _, path := range []string{"/", "/b/chess", "/b/nope", "/b/chess/m/ann", "/b/chess/around/ann", "/embed/chess", "/live?board=chess"} {
		t.Run("page"+path, func(t *testing.T) {
			res, body := f.Get(path)
			if res.StatusCode != 503 || res.Header.Get("Retry-After") != "5" || !strings.Contains(body, "The data store (Redis) is unavailable") || strings.Contains(body, rs.Addr) {
				t.Fatalf("GET %s: %d Retry-After %q\n%s", path, res.StatusCode, res.Header.Get("Retry-After"), webtest.Excerpt(body))
			}
		})
	}
	if len(fl.specs) != 0 {
		t.Fatalf("/live upgraded with Redis down: %v", fl.specs)
	}
	if res, body := a.Get("/admin"); res.StatusCode != 503 || !strings.Contains(body, "The data store (Redis) is unavailable") {
		t.Fatalf("admin console: %d\n%s", res.StatusCode, webtest.Excerpt(body))
	}
	api := []struct{ method, path, key, body string }{
		{"GET", "/api/v1/boards", "", ""},
		{"GET", "/api/v1/boards/chess/entries", "", ""},
		{"GET", "/api/v1/boards/nope", "", ""},
		{"POST", "/api/v1/boards/chess/scores", key, `{"member":"bob","score":1}`},
	}
	for _, tc := range api {
		t.Run("api "+tc.method+" "+tc.path, func(t *testing.T) {
			status, out, hdr := f.Call(tc.method, tc.path, tc.key, tc.body)
			e, _ := out["error"].(map[string]any)
			if status != 503 || webtest.ErrCode(out) != "unavailable" || hdr.Get("Retry-After") != "5" || !strings.Contains(e["message"].(string), "data store (Redis) is unavailable") {
				t.Fatalf("%s %s: %d %v Retry-After %q", tc.method, tc.path, status, out, hdr.Get("Retry-After"))
			}
		})
	}
	if errs := logs.at(slog.LevelError); len(errs) != 0 {
		t.Fatalf("an unreachable store logged errors as if they were bugs: %v", errs)
	}
	if !slices.Contains(logs.at(slog.LevelWarn), "WARN data store unavailable") {
		t.Fatalf("the outage is not logged: %v", logs.at(slog.LevelDebug))
	}

	if err := rs.Restart(); err != nil { // back, and empty: chess is gone for real
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); rdb.Ping(t.Context()).Err() != nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) { // go-redis redials in the background after failed dials
			t.Fatal("the client did not reconnect")
		}
	}
	if res, body := f.Get("/b/chess"); res.StatusCode != 404 || !strings.Contains(body, "There is no board called “chess”") {
		t.Fatalf("a missing board after the restart: %d\n%s", res.StatusCode, webtest.Excerpt(body))
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/chess", "", ""); status != 404 || webtest.ErrCode(out) != "board_not_found" {
		t.Fatalf("API, missing board after the restart: %d %v", status, out)
	}
	if res, _ := f.Get("/live?board=chess"); res.StatusCode != 404 {
		t.Fatalf("/live, missing board after the restart: %d", res.StatusCode)
	}
}

// brokenWriter fails every write the way a connection whose client left does.
type brokenWriter struct{ *httptest.ResponseRecorder }

func (brokenWriter) Write([]byte) (int, error) {
	return 0, &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
}

// TestClientGoneLogsAtDebug: a client that leaves (its request canceled, or
// the answer cannot be written) is routine: nothing above DEBUG is logged.
func TestClientGoneLogsAtDebug(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, map[string]float64{"ann": 3})
	logs := &logRecorder{}
	s := web.New(web.Options{Store: f.Store, Admin: f.Admin, Logger: slog.New(logs)})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name, path string
		ctx        context.Context
		broken     bool
	}{
		{"page, canceled", "/b/chess", canceled, false},
		{"embed, canceled", "/embed/chess", canceled, false},
		{"api, canceled", "/api/v1/boards/chess/entries", canceled, false},
		{"page, broken pipe", "/b/chess", context.Background(), true},
		{"api, broken pipe", "/api/v1/boards/chess/entries", context.Background(), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs.reset()
			req := httptest.NewRequest("GET", tc.path, nil).WithContext(tc.ctx)
			rec := httptest.NewRecorder()
			var w http.ResponseWriter = rec
			if tc.broken {
				w = brokenWriter{rec}
			}
			s.ServeHTTP(w, req)
			if loud := logs.at(slog.LevelInfo); len(loud) != 0 {
				t.Fatalf("a client that left was logged as %v", loud)
			}
			if !slices.Contains(logs.at(slog.LevelDebug), "DEBUG client went away") {
				t.Fatalf("no debug line: %v", logs.at(slog.LevelDebug))
			}
		})
	}
}

// status is the "status" attribute of a record, or -1.
func status(r slog.Record) int {
	st := -1
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "status" {
			st = int(a.Value.Int64())
		}
		return true
	})
	return st
}

// TestRequestLogStatus: the request line says the status the client got
// (errors used to be answered after it was written, and logged as 200), at
// DEBUG below 500 and WARN from 500.
func TestRequestLogStatus(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		store  pages.Store
		path   string
		ctx    context.Context
		status int
		level  slog.Level
	}{
		{"ok", f.Store, "/b/chess", context.Background(), 200, slog.LevelDebug},
		{"no board", f.Store, "/b/nope", context.Background(), 404, slog.LevelDebug},
		{"bad size", f.Store, "/b/chess?size=0", context.Background(), 400, slog.LevelDebug},
		{"client left", f.Store, "/b/chess", canceled, request.StatusClientClosed, slog.LevelDebug},
		{"bug", brokenStore{f.Store}, "/b/chess", context.Background(), 500, slog.LevelWarn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs := &logRecorder{}
			s := web.New(web.Options{Store: tc.store, Logger: slog.New(logs)})
			rec := webtest.Record(s, httptest.NewRequest("GET", tc.path, nil).WithContext(tc.ctx))
			var lines []string
			for _, r := range logs.records {
				if r.Message == "request" {
					lines = append(lines, r.Level.String())
					if status(r) != tc.status || r.Level != tc.level || rec.Code != tc.status {
						t.Fatalf("GET %s answered %d, logged %s status %d; want %s %d", tc.path, rec.Code, r.Level, status(r), tc.level, tc.status)
					}
				}
			}
			if len(lines) != 1 {
				t.Fatalf("request lines: %v", lines)
			}
		})
	}
}
