package api_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/hooks"
	"podium/internal/webtest"
	"podium/redisstore"
)

// TestAPIWebhookOnOffAndSecret: over the API a webhook is turned off and on
// (audited only when that changes it) and given a new secret, shown in that
// answer and never again; deliveries are signed with the new one.
func TestAPIWebhookOnOffAndSecret(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	key := f.Key("chess bot", "chess")
	status, created, _ := f.Call("POST", "/api/v1/boards/chess/hooks", key, `{"url":"https://example.com/h?token=abc","events":["leader.changed"]}`)
	first, _ := created["secret"].(string)
	id, _ := created["id"].(string)
	if status != 201 || !webtest.HookSecret.MatchString(first) || id == "" {
		t.Fatalf("create: %d %v", status, created)
	}
	stored := func() (enabled bool, secret string) {
		t.Helper()
		h, err := f.Admin.Hooks.Get(context.Background(), "chess", id)
		if err != nil {
			t.Fatal(err)
		}
		return h.Enabled, h.Secret
	}

	for _, step := range []struct {
		body string
		want bool
	}{{`{"enabled":false}`, false}, {`{"enabled":false}`, false}, {`{"enabled":true}`, true}} {
		status, got, _ := f.Call("PATCH", "/api/v1/boards/chess/hooks/"+id, key, step.body)
		if on, _ := stored(); status != 200 || got["enabled"] != step.want || on != step.want || got["secret"] != nil {
			t.Fatalf("PATCH %s: %d %v (stored %v)", step.body, status, got, on)
		}
	}
	if status, got, _ := f.Call("PATCH", "/api/v1/boards/chess/hooks/"+id, key, `{}`); status != 422 || got["error"].(map[string]any)["field"] != "enabled" {
		t.Fatalf("PATCH without enabled: %d %v", status, got)
	}

	status, rotated, _ := f.Call("POST", "/api/v1/boards/chess/hooks/"+id+"/secret", key, "")
	second, _ := rotated["secret"].(string)
	if _, now := stored(); status != 200 || !webtest.HookSecret.MatchString(second) || second == first || now != second {
		t.Fatalf("new secret: %d %v (stored %q)", status, rotated, now)
	}
	status, one, _ := f.Call("GET", "/api/v1/boards/chess/hooks/"+id, key, "")
	if status != 200 || one["id"] != id || one["secret"] != nil || one["enabled"] != true {
		t.Fatalf("GET after: %d %v", status, one)
	}

	if got := f.HookAudit("chess", "key:chess bot"); got != "hook.rotate hook.enable hook.disable hook.create" {
		t.Fatalf("audit: %s", got)
	}

	// A hook an earlier board of this id left behind (its runner drops it)
	// is not found, to read or to change.
	h, _ := f.Admin.Hooks.Get(context.Background(), "chess", id)
	h.BoardCreated--
	js, _ := json.Marshal(h)
	if err := f.Store.Client().HSet(context.Background(), "lb:{chess}:hooks", id, js).Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "", ""}, {"PATCH", "", `{"enabled":false}`}, {"POST", "/secret", ""}, {"POST", "/test", ""}, {"DELETE", "", ""},
	} {
		if status, got, _ := f.Call(c.method, "/api/v1/boards/chess/hooks/"+id+c.path, key, c.body); status != 404 {
			t.Errorf("%s an earlier board's hook: %d %v", c.method, status, got)
		}
	}
	if after, _ := f.Admin.Hooks.Get(context.Background(), "chess", id); after.Secret != h.Secret || !after.Enabled {
		t.Fatal("an earlier board's hook was changed")
	}
}

// A webhook keeps the periods it was given, even every period the board
// keeps today; left out, it follows every period, later ones included, and
// says so. An empty list is no choice: refused.
func TestAPIWebhookPeriods(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "solo", Title: "Solo", Periods: []board.Kind{board.AllTime}, DefaultPeriod: board.AllTime}, nil)
	key := f.Key("solo bot", "solo")
	for _, c := range []struct {
		name, periods string
		status        int
		want          []any
		every         bool
	}{
		{"every period the board keeps, listed", `,"periods":["all"]`, 201, []any{"all"}, false},
		{"left out", ``, 201, []any{}, true},
		{"null", `,"periods":null`, 201, []any{}, true},
		{"an empty list", `,"periods":[]`, 422, nil, false},
	} {
		status, got, _ := f.Call("POST", "/api/v1/boards/solo/hooks", key, `{"url":"https://example.com/h","events":["leader.changed"]`+c.periods+`}`)
		if status != c.status {
			t.Fatalf("%s: %d %v", c.name, status, got)
		}
		if status != 201 {
			if webtest.ErrField(got) != "periods" {
				t.Fatalf("%s: %v, want an error at periods", c.name, got)
			}
			continue
		}
		if ps, _ := got["periods"].([]any); !slices.Equal(ps, c.want) || got["every_period"] != c.every {
			t.Fatalf("%s: periods %v, every_period %v", c.name, got["periods"], got["every_period"])
		}
		id, _ := got["id"].(string)
		if _, one, _ := f.Call("GET", "/api/v1/boards/solo/hooks/"+id, key, ""); !slices.Equal(one["periods"].([]any), c.want) || one["every_period"] != c.every {
			t.Fatalf("%s: read back %v", c.name, one)
		}
	}
}

// Deleting a board deletes its webhooks in the same step: the secret and
// the queue are gone at once, and after the board is made again with the
// same id, the old hook is not found, to read, test or delete.
func TestAPIDeletedBoardTakesItsWebhooks(t *testing.T) {
	f := webtest.New(t)
	def := board.Board{ID: "chess", Title: "Chess"}
	f.Board(def, nil)
	all, key := f.Key("ops", ""), f.Key("chess bot", "chess")
	status, created, _ := f.Call("POST", "/api/v1/boards/chess/hooks", key, `{"url":"https://example.com/h","events":["leader.changed"]}`)
	id, _ := created["id"].(string)
	if status != 201 || id == "" {
		t.Fatalf("create: %d %v", status, created)
	}
	if status, got, _ := f.Call("POST", "/api/v1/boards/chess/hooks/"+id+"/test", key, ""); status != 202 {
		t.Fatalf("test event: %d %v", status, got)
	}
	if status, got, _ := f.Call("DELETE", "/api/v1/boards/chess", all, ""); status != 200 && status != 204 {
		t.Fatalf("delete the board: %d %v", status, got)
	}
	left, err := f.Store.Client().Keys(context.Background(), redisstore.HooksKey("chess")+"*").Result()
	if err != nil || len(left) != 0 {
		t.Fatalf("webhook keys left once the board is deleted: %v (%v)", left, err)
	}
	f.Board(def, nil)
	key = f.Key("chess bot 2", "chess")
	for _, c := range []struct{ method, path string }{{"GET", ""}, {"POST", "/test"}, {"DELETE", ""}} {
		if status, got, _ := f.Call(c.method, "/api/v1/boards/chess/hooks/"+id+c.path, key, ""); status != 404 || webtest.ErrCode(got) != "hook_not_found" {
			t.Errorf("%s the deleted board's hook: %d %v", c.method+" "+c.path, status, got)
		}
	}
	if left, _ := f.Store.Client().Keys(context.Background(), redisstore.HooksKey("chess")+"*").Result(); len(left) != 0 {
		t.Fatalf("webhook keys of the new board, which has none: %v", left)
	}
}

// Registration refuses URLs that plainly point inside the server's
// network, naming the field; nothing is stored.
func TestAPIWebhookRefusesLocalURLs(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	key := f.Key("chess bot", "chess")
	for _, u := range []string{
		"https://127.0.0.1/h", "https://[::1]/h", "https://10.0.0.1/h", "https://192.168.0.10/h", "https://169.254.169.254/latest/meta-data/",
		"https://100.64.0.1/h", "https://[::7f00:1]/h", "https://[fec0::1]/h", "https://198.18.0.1/h", "https://192.0.0.170/h",
		"https://[2001:db8::1]/h", "https://[100::1]/h", "https://localhost:8443/h", "https://api.localhost/h", "https://metadata.google.internal/h",
	} {
		body, _ := json.Marshal(map[string]any{"url": u, "events": []string{"leader.changed"}})
		status, got, _ := f.Call("POST", "/api/v1/boards/chess/hooks", key, string(body))
		if status != 422 || webtest.ErrField(got) != "url" {
			t.Errorf("%s: %d %v, want 422 at url", u, status, got)
		}
	}
	if hs, _ := f.Admin.Hooks.List(context.Background(), "chess"); len(hs) != 0 {
		t.Fatalf("%d hooks stored", len(hs))
	}
}

// A delivery's error is a category in the API and in the console, even
// for an attempt logged with the error's text (addresses, the resolver)
// by an earlier version.
func TestWebhookDeliveryErrorsNameNoAddress(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	key := f.Key("chess bot", "chess")
	_, created, _ := f.Call("POST", "/api/v1/boards/chess/hooks", key, `{"url":"https://example.com/h","events":["leader.changed"]}`)
	id, _ := created["id"].(string)
	for _, e := range []string{"lookup intranet.corp. on 10.255.255.53:53: no such host", "dial tcp 10.0.0.1:38190: refused: not a public address (HOOKS_ALLOW_PRIVATE allows it)"} {
		js, _ := json.Marshal(hooks.Attempt{Delivery: "1-0", Event: "chess-1", Type: hooks.Ping, At: time.Now(), Attempt: 1, Outcome: hooks.Retrying, Error: e, Next: time.Now().Add(time.Minute)})
		if err := f.Store.Client().LPush(context.Background(), redisstore.HooksKey("chess")+":log:"+id, js).Err(); err != nil {
			t.Fatal(err)
		}
	}
	status, raw := f.RawCall("GET", "/api/v1/boards/chess/hooks/"+id, key, nil)
	if status != 200 || !strings.Contains(raw, `"error":"refused: not a public address"`) || !strings.Contains(raw, `"error":"DNS failure"`) ||
		strings.Contains(raw, "10.0.0.1") || strings.Contains(raw, "10.255.255.53") || strings.Contains(raw, "intranet") {
		t.Fatalf("GET: %d %s", status, raw)
	}
	if err := f.Admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a := f.Browser()
	a.Login("alice", "correct horse battery")
	if _, body := a.Get("/admin/boards/chess/hooks"); !strings.Contains(body, "failed (DNS failure), retry at") || strings.Contains(body, "10.255.255.53") || strings.Contains(body, "10.0.0.1") || strings.Contains(body, "intranet") {
		t.Fatalf("console: %s", webtest.Excerpt(body))
	}
}

// A registration whose text is not UTF-8 is refused whole (400), wherever
// it is; one whose URL holds bidi controls or invisible characters is
// refused at url (422). Nothing is stored.
func TestAPIWebhookRefusesBadText(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	key := f.Key("chess bot", "chess")
	for _, body := range []string{
		`{"url":"https://example.com/` + "\xff" + `","events":["leader.changed"]}`,
		`{"url":"https://example.com/h","events":["leader.changed` + "\xc3\x28" + `"]}`,
		`{"url":"https://example.com/h","events":["leader.changed"],"periods":["all` + "\xed\xa0\x80" + `"]}`, // an encoded surrogate
	} {
		if status, raw := f.RawCall("POST", "/api/v1/boards/chess/hooks", key, strings.NewReader(body)); status != 400 || !strings.Contains(raw, `"bad_utf8"`) {
			t.Errorf("%q: %d %s, want 400 bad_utf8", body, status, raw)
		}
	}
	for _, u := range []string{
		"https://example.com/\u202ehtap", "https://exa\u202dmple.com/", "https://example.com/\u202a", "https://example.com/\u202b", "https://example.com/\u202c",
		"https://example.com/\u2066x", "https://example.com/\u2067", "https://example.com/\u2068", "https://example.com/x\u2069",
		"https://example.com/\u200e", "https://example.com/\u200f", "https://example.com/\u061c", "https://example.com/\u200b",
	} {
		body, _ := json.Marshal(map[string]any{"url": u, "events": []string{"leader.changed"}})
		if status, got, _ := f.Call("POST", "/api/v1/boards/chess/hooks", key, string(body)); status != 422 || webtest.ErrField(got) != "url" {
			t.Errorf("%+q: %d %v, want 422 at url", u, status, got)
		}
	}
	// A JSON escape of a lone surrogate decodes to U+FFFD: refused at url.
	if status, got, _ := f.Call("POST", "/api/v1/boards/chess/hooks", key, `{"url":"https://example.com/\udc00","events":["leader.changed"]}`); status != 422 || webtest.ErrField(got) != "url" {
		t.Errorf("a lone surrogate: %d %v", status, got)
	}
	if hs, _ := f.Admin.Hooks.List(context.Background(), "chess"); len(hs) != 0 {
		t.Fatalf("%d hooks stored", len(hs))
	}
}
