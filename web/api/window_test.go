package api_test

import (
	"strings"
	"testing"

	"podium/internal/webtest"
)

// TestAPIRollingWindows: a board with rolling windows made, written and read
// over the API; its windows read like any period, and the window mode stays
// fixed while a window is on.
func TestAPIRollingWindows(t *testing.T) {
	f := webtest.New(t)
	key := f.Key("ops", "")
	def := `{"id":"streaks","title":"Streaks","periods":["week","all","last24h","last7d"],"default_period":"last7d","window":"best"}`
	status, out, _ := f.Call("POST", "/api/v1/boards", key, def)
	if status != 201 || out["window"] != "best" || len(out["periods"].([]any)) != 4 {
		t.Fatalf("create: %d %v", status, out)
	}
	t.Cleanup(func() { f.Call("DELETE", "/api/v1/boards/streaks", key, "") })
	for _, body := range []string{`{"member":"ann","score":40,"op":"best"}`, `{"member":"ann","score":25,"op":"set"}`, `{"member":"bob","score":30,"op":"best"}`} {
		status, out, _ := f.Call("POST", "/api/v1/boards/streaks/scores", key, body)
		if status != 200 {
			t.Fatalf("submit %s: %d %v", body, status, out)
		}
	}
	// ann's set lowers her week and all-time score; her window keeps the
	// best offered inside it.
	status, out, _ = f.Call("GET", "/api/v1/boards/streaks/entries?period=last7d", "", "")
	if status != 200 {
		t.Fatalf("entries: %d %v", status, out)
	}
	p := out["period"].(map[string]any)
	if p["kind"] != "last7d" || p["title"] != "Last 7 days" || p["key"] != nil || p["start"] != nil {
		t.Fatalf("period %v", p)
	}
	var got []string
	for _, e := range out["entries"].([]any) {
		e := e.(map[string]any)
		got = append(got, e["member"].(string)+"="+e["score_text"].(string))
	}
	if strings.Join(got, " ") != "ann=40 bob=30" {
		t.Fatalf("last7d entries %v", got)
	}
	status, out, _ = f.Call("GET", "/api/v1/boards/streaks/entries?period=week", "", "")
	if status != 200 || out["entries"].([]any)[0].(map[string]any)["member"] != "bob" {
		t.Fatalf("week entries: %d %v", status, out)
	}
	status, out, _ = f.Call("GET", "/api/v1/boards/streaks/members/ann", "", "")
	if status != 200 || len(out["periods"].([]any)) != 4 {
		t.Fatalf("member: %d %v", status, out)
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/streaks/entries?period=last7d&at=2026-11-22", "", ""); status != 400 && status != 404 {
		t.Fatalf("a window with a key: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/streaks", key, strings.Replace(def, `"best"`, `"sum"`, 1)); status != 409 || webtest.ErrField(out) != "window" {
		t.Fatalf("changing the window mode with windows on: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/streaks", key, `{"title":"Streaks","periods":["week","all","last24h","last7d"]}`); status != 200 || out["window"] != "best" {
		t.Fatalf("window left out is kept: %d %v", status, out)
	}
	if status, out, _ := f.Call("POST", "/api/v1/boards", key, `{"id":"bad-window","title":"x","window":"max"}`); status != 422 || webtest.ErrField(out) != "window" {
		t.Fatalf("window max: %d %v", status, out)
	}
}
