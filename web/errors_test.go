package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/internal/redistest"
)

// TestPeriodYearRange: periods whose start or end falls outside years
// 0001-9999 are refused with a 4xx that says so (their end cannot be written
// as JSON), on the API and on every page that takes a period; the edge
// periods themselves work and offer no link to a period beyond.
func TestPeriodYearRange(t *testing.T) {
	f := newAPIFixture(t, 1000, 1000)
	f.board(board.Board{ID: "edge", Title: "Edge", Periods: board.Kinds}, map[string]float64{"ann": 1})
	const why = "within years 0001-9999"
	api := []struct {
		name, path string
		status     int
		says       string
	}{
		{"last day", "/api/v1/boards/edge/entries?period=day&at=9999-12-31", 404, why},
		{"last week", "/api/v1/boards/edge/entries?period=week&at=9999-W52", 404, why},
		{"last month", "/api/v1/boards/edge/entries?period=month&at=9999-12", 404, why},
		{"last year", "/api/v1/boards/edge/entries?period=year&at=9999", 404, why},
		{"year zero", "/api/v1/boards/edge/entries?period=day&at=0000-12-31", 404, why},
		{"around", "/api/v1/boards/edge/members/ann/around?period=day&at=9999-12-31", 404, why},
		{"member removal", "/api/v1/boards/edge/members/ann?period=day&at=9999-12-31", 404, why},
		{"day before the last", "/api/v1/boards/edge/entries?period=day&at=9999-12-30", 200, ""},
		{"week before the last", "/api/v1/boards/edge/entries?period=week&at=9999-W51", 200, ""},
		{"first day", "/api/v1/boards/edge/entries?period=day&at=0001-01-01", 200, ""},
		{"first year", "/api/v1/boards/edge/entries?period=year&at=0001", 200, ""},
	}
	key := f.key("ops", "")
	for _, tc := range api {
		t.Run("api/"+tc.name, func(t *testing.T) {
			method := "GET"
			if strings.Contains(tc.name, "removal") {
				method = "DELETE"
			}
			status, out, _ := f.call(method, tc.path, key, "")
			e, _ := out["error"].(map[string]any)
			msg, _ := e["message"].(string)
			if status != tc.status || !strings.Contains(msg, tc.says) {
				t.Fatalf("%s %s: %d %v, want %d with %q", method, tc.path, status, out, tc.status, tc.says)
			}
		})
	}
	pages := []struct {
		path   string
		status int
		says   string
		not    string
	}{
		{"/b/edge?period=day&at=9999-12-31", 404, why, ""},
		{"/b/edge?period=week&at=9999-W52", 404, why, ""},
		{"/b/edge?period=month&at=9999-12", 404, why, ""},
		{"/b/edge?period=year&at=9999", 404, why, ""},
		{"/embed/edge?period=day&at=9999-12-31", 404, why, ""},
		{"/embed/edge?period=year&at=0000", 404, why, ""},
		{"/b/edge/around/ann?period=week&at=9999-W52", 404, why, ""},
		{"/b/edge?period=day&at=0001-01-01", 200, "Monday 1 January 0001", "0000-12-31"},
		{"/b/edge?period=week&at=0001-W01", 200, "Week 1, 1–7 Jan 0001", "0000-W52"},
		{"/b/edge?period=year&at=0001", 200, "0001", "at=0000"},
		{"/b/edge?period=day&at=9999-12-30", 200, "Thursday 30 December 9999", "9999-12-31"},
	}
	for _, tc := range pages {
		t.Run("page"+tc.path, func(t *testing.T) {
			res, body := f.get(tc.path)
			if res.StatusCode != tc.status || !strings.Contains(body, tc.says) {
				t.Fatalf("GET %s: %d, want %d with %q in:\n%s", tc.path, res.StatusCode, tc.status, tc.says, excerpt(body))
			}
			if tc.not != "" && strings.Contains(body, tc.not) {
				t.Fatalf("GET %s links to %s, a period no page can show", tc.path, tc.not)
			}
		})
	}
	// The live handshake checks the view like the pages do.
	fl := &fakeLive{}
	h := New(Options{Store: f.store, Live: fl, Logger: quietLog})
	if rec := serve(h, httptestRequest("GET", "/live?board=edge&period=day&at=9999-12-31", nil)); rec.Code != 404 || len(fl.specs) != 0 {
		t.Fatalf("/live at 9999-12-31: %d, %d upgrades", rec.Code, len(fl.specs))
	}
}

// TestAuditCursor: a ?before= that is not an audit entry id is the visitor's
// mistake: 400 with a message, not a 500 from Redis.
func TestAuditCursor(t *testing.T) {
	f := newAPIFixture(t, 1000, 1000)
	if err := f.admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a := f.adminClient()
	if res := a.login("alice", "correct horse battery"); res.StatusCode != 303 {
		t.Fatalf("login: %d", res.StatusCode)
	}
	tests := []struct {
		before string
		status int
		says   string
	}{
		{"garbage", 400, "before must be an audit entry id"},
		{"-1", 400, "before must be an audit entry id"},
		{"99999999999999999999-0", 400, "before must be an audit entry id"},
		{"1-x", 400, "before must be an audit entry id"},
		{"1767225600000-0", 200, "Audit log"},
		{"0-0", 200, "Audit log"},
	}
	for _, tc := range tests {
		t.Run(tc.before, func(t *testing.T) {
			res, body := a.get("/admin/audit?before=" + url.QueryEscape(tc.before))
			if res.StatusCode != tc.status || !strings.Contains(body, tc.says) {
				t.Fatalf("before=%s: %d, want %d with %q in:\n%s", tc.before, res.StatusCode, tc.status, tc.says, excerpt(body))
			}
		})
	}
}

// TestBoardPeriodsRequired: "periods": [] is refused with 422 naming the
// field, on create and on update, and nothing changes; leaving periods out of
// a new board keeps the default (all time).
func TestBoardPeriodsRequired(t *testing.T) {
	f := newAPIFixture(t, 1000, 1000)
	f.board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}, nil)
	key := f.key("ops", "")
	tests := []struct {
		name, method, path, body string
		status                   int
		field                    string
		periods                  string // of the board afterwards, "" when it must not exist
	}{
		{"update with none", "PUT", "/api/v1/boards/chess", `{"title":"Chess","periods":[]}`, 422, "periods", "week,all"},
		{"create with none", "POST", "/api/v1/boards", `{"id":"go","title":"Go","periods":[]}`, 422, "periods", ""},
		{"create without the field", "POST", "/api/v1/boards", `{"id":"golf","title":"Golf"}`, 201, "", "all"},
		{"update with one", "PUT", "/api/v1/boards/chess", `{"title":"Chess","periods":["day"]}`, 200, "", "day"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, out, _ := f.call(tc.method, tc.path, key, tc.body)
			if status != tc.status || errField(out) != tc.field {
				t.Fatalf("%s %s %s: %d %v, want %d field %q", tc.method, tc.path, tc.body, status, out, tc.status, tc.field)
			}
			if e, _ := out["error"].(map[string]any); e != nil && !strings.Contains(e["message"].(string), "at least one period") {
				t.Fatalf("message %q", e["message"])
			}
			var id struct{ ID string }
			_ = json.Unmarshal([]byte(tc.body), &id)
			if id.ID == "" {
				id.ID = "chess"
			}
			b, err := f.store.Board(t.Context(), id.ID)
			var kinds []string
			for _, k := range b.Periods {
				kinds = append(kinds, string(k))
			}
			got := strings.Join(kinds, ",")
			if err != nil && tc.periods != "" || got != tc.periods {
				t.Fatalf("board %s afterwards: periods %q (%v), want %q", id.ID, got, err, tc.periods)
			}
		})
	}
}

// TestAPIBodyTooLarge: a body over the limit is a 413 too_large whether it
// says its length or comes chunked (when BodyLimit only notices while the
// handler reads), and nothing is written.
func TestAPIBodyTooLarge(t *testing.T) {
	f := newAPIFixture(t, 1000, 1000)
	key := f.key("ops", "")
	big := `{"id":"big","title":"` + strings.Repeat("a", 1_100_000) + `"}`
	for _, tc := range []struct {
		name    string
		chunked bool
	}{{"content-length", false}, {"chunked", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(big)
			if tc.chunked {
				body = io.MultiReader(body) // hides the length: the client sends it chunked
			}
			req, _ := http.NewRequest("POST", f.api.URL+"/api/v1/boards", body)
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			if known := req.ContentLength > 0; known == tc.chunked {
				t.Fatalf("content length %d", req.ContentLength)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var out map[string]any
			if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
				t.Fatal(err)
			}
			e, _ := out["error"].(map[string]any)
			if res.StatusCode != 413 || errCode(out) != "too_large" || !strings.Contains(e["message"].(string), "limit of 1MB") {
				t.Fatalf("%s: %d %v", tc.name, res.StatusCode, out)
			}
			if _, err := f.store.Board(t.Context(), "big"); !errors.Is(err, board.ErrNotFound) {
				t.Fatalf("a refused body wrote a board: %v", err)
			}
		})
	}
}

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
	redis.SetLogger(silentRedis{})
	rs, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rs.Close)
	// Few retries: each request fails at once (a pooled connection with EOF, or
	// a refused dial) instead of after go-redis's backoff.
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr, MaxRetries: -1, DialerRetries: 1, DialerRetryTimeout: 10 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	store := board.NewStore(rdb, board.WithClock(func() time.Time { return testNow }))
	adm := &Admin{Store: store, Accounts: access.NewAccounts(rdb, bcrypt.MinCost), Sessions: access.NewSessions(rdb),
		Keys: access.NewKeys(rdb), Limiter: access.NewLimiter(rdb), Audit: audit.New(rdb)}
	logs := &logRecorder{}
	fl := &fakeLive{}
	h := httptest.NewServer(New(Options{Store: store, Admin: adm, Live: fl, Logger: slog.New(logs)}))
	t.Cleanup(h.Close)
	f := &apiFixture{fixture: &fixture{t: t, store: store, http: h}, admin: adm, api: h}
	f.board(board.Board{ID: "chess", Title: "Chess"}, map[string]float64{"ann": 3})
	key := f.key("ops", "")
	if err := adm.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a := f.adminClient()
	if res := a.login("alice", "correct horse battery"); res.StatusCode != 303 {
		t.Fatalf("login: %d", res.StatusCode)
	}

	rs.Stop()
	logs.reset()
	for _, path := range []string{"/", "/b/chess", "/b/nope", "/b/chess/m/ann", "/b/chess/around/ann", "/embed/chess", "/live?board=chess"} {
		t.Run("page"+path, func(t *testing.T) {
			res, body := f.get(path)
			if res.StatusCode != 503 || res.Header.Get("Retry-After") != "5" || !strings.Contains(body, "The data store (Redis) is unavailable") || strings.Contains(body, rs.Addr) {
				t.Fatalf("GET %s: %d Retry-After %q\n%s", path, res.StatusCode, res.Header.Get("Retry-After"), excerpt(body))
			}
		})
	}
	if len(fl.specs) != 0 {
		t.Fatalf("/live upgraded with Redis down: %v", fl.specs)
	}
	if res, body := a.get("/admin"); res.StatusCode != 503 || !strings.Contains(body, "The data store (Redis) is unavailable") {
		t.Fatalf("admin console: %d\n%s", res.StatusCode, excerpt(body))
	}
	api := []struct{ method, path, key, body string }{
		{"GET", "/api/v1/boards", "", ""},
		{"GET", "/api/v1/boards/chess/entries", "", ""},
		{"GET", "/api/v1/boards/nope", "", ""},
		{"POST", "/api/v1/boards/chess/scores", key, `{"member":"bob","score":1}`},
	}
	for _, tc := range api {
		t.Run("api "+tc.method+" "+tc.path, func(t *testing.T) {
			status, out, hdr := f.call(tc.method, tc.path, tc.key, tc.body)
			e, _ := out["error"].(map[string]any)
			if status != 503 || errCode(out) != "unavailable" || hdr.Get("Retry-After") != "5" || !strings.Contains(e["message"].(string), "data store (Redis) is unavailable") {
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
	if res, body := f.get("/b/chess"); res.StatusCode != 404 || !strings.Contains(body, "There is no board called “chess”") {
		t.Fatalf("a missing board after the restart: %d\n%s", res.StatusCode, excerpt(body))
	}
	if status, out, _ := f.call("GET", "/api/v1/boards/chess", "", ""); status != 404 || errCode(out) != "board_not_found" {
		t.Fatalf("API, missing board after the restart: %d %v", status, out)
	}
	if res, _ := f.get("/live?board=chess"); res.StatusCode != 404 {
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
	f := newAPIFixture(t, 1000, 1000)
	f.board(board.Board{ID: "chess", Title: "Chess"}, map[string]float64{"ann": 3})
	logs := &logRecorder{}
	s := New(Options{Store: f.store, Admin: f.admin, Logger: slog.New(logs)})
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
			req := httptestRequest("GET", tc.path, nil).WithContext(tc.ctx)
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
	f := newFixture(t)
	f.board(board.Board{ID: "chess", Title: "Chess"}, nil)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		store  Store
		path   string
		ctx    context.Context
		status int
		level  slog.Level
	}{
		{"ok", f.store, "/b/chess", context.Background(), 200, slog.LevelDebug},
		{"no board", f.store, "/b/nope", context.Background(), 404, slog.LevelDebug},
		{"bad size", f.store, "/b/chess?size=0", context.Background(), 400, slog.LevelDebug},
		{"client left", f.store, "/b/chess", canceled, statusClientClosed, slog.LevelDebug},
		{"bug", brokenStore{f.store}, "/b/chess", context.Background(), 500, slog.LevelWarn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs := &logRecorder{}
			s := New(Options{Store: tc.store, Logger: slog.New(logs)})
			rec := serve(s, httptestRequest("GET", tc.path, nil).WithContext(tc.ctx))
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

// flakyStore lists boards but cannot read one: Redis went away in between.
type flakyStore struct{ Store }

func (flakyStore) Board(context.Context, string) (board.Board, error) {
	return board.Board{}, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

// TestAdminKeyBoardCheck: creating a key for a board that cannot be read
// because Redis is unreachable is a 503, not "no such board".
func TestAdminKeyBoardCheck(t *testing.T) {
	f := newAPIFixture(t, 1000, 1000)
	f.board(board.Board{ID: "chess", Title: "Chess"}, nil)
	if err := f.admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	h := httptest.NewServer(New(Options{Store: flakyStore{f.store}, Admin: f.admin, Logger: quietLog}))
	t.Cleanup(h.Close)
	a := (&apiFixture{fixture: f.fixture, admin: f.admin, api: h}).adminClient()
	a.login("alice", "correct horse battery")
	a.get("/admin/keys")
	res, body := a.post("/admin/keys", url.Values{"name": {"bot"}, "board": {"chess"}, "csrf": {a.csrf}})
	if res.StatusCode != 503 || strings.Contains(body, "no such board") {
		t.Fatalf("create key with Redis failing: %d\n%s", res.StatusCode, excerpt(body))
	}
	if keys, _ := f.admin.Keys.List(t.Context()); len(keys) != 0 {
		t.Fatalf("a key was created: %v", keys)
	}
}
