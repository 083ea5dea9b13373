package api_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"podium/audit"
	"podium/board"
	"podium/internal/webtest"
)

func TestAPIKeysScopesAndErrors(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}, map[string]float64{"ann": 10})
	f.Board(board.Board{ID: "golf", Title: "Golf"}, nil)
	all := f.Key("ops", "")
	chessOnly := f.Key("chess bot", "chess")
	big := `{"scores": [` + strings.Repeat(`{"member":"x","score":1},`, 50_000) + `{"member":"x","score":1}]}`
	tests := []struct {
		name, method, path, key, body string
		status                        int
		code                          string
	}{
		{"no key", "POST", "/api/v1/boards/chess/scores", "", `{"member":"bob","score":1}`, 401, "unauthorized"},
		{"wrong key", "POST", "/api/v1/boards/chess/scores", "pdm_nope_nope", `{"member":"bob","score":1}`, 401, "unauthorized"},
		{"scoped to another board", "POST", "/api/v1/boards/golf/scores", chessOnly, `{"member":"bob","score":1}`, 403, "forbidden"},
		{"scoped key cannot manage boards", "POST", "/api/v1/boards", chessOnly, `{"id":"new","title":"New"}`, 403, "forbidden"},
		{"malformed JSON", "POST", "/api/v1/boards/chess/scores", all, `{"member":`, 400, "bad_json"},
		{"unknown field", "POST", "/api/v1/boards/chess/scores", all, `{"member":"bob","score":1,"points":3}`, 400, "bad_json"},
		{"both forms", "POST", "/api/v1/boards/chess/scores", all, `{"member":"bob","score":1,"scores":[]}`, 400, "bad_json"},
		{"unknown board", "POST", "/api/v1/boards/nope/scores", all, `{"member":"bob","score":1}`, 404, "board_not_found"},
		{"unknown period", "GET", "/api/v1/boards/chess/entries?period=day", "", "", 404, "period_not_found"},
		{"bad period key", "GET", "/api/v1/boards/chess/entries?period=week&at=2026-W99", "", "", 404, "period_not_found"},
		{"unknown member", "GET", "/api/v1/boards/chess/members/ghost", "", "", 404, "member_not_found"},
		{"bad limit", "GET", "/api/v1/boards/chess/entries?limit=0", "", "", 400, "bad_parameter"},
		{"no route", "GET", "/api/v1/nothing", "", "", 404, "not_found"},
		{"board exists", "POST", "/api/v1/boards", all, `{"id":"chess","title":"Again"}`, 409, "exists"},
		{"immutable order", "PUT", "/api/v1/boards/chess", all, `{"title":"Chess","order":"lower","periods":["week","all"]}`, 409, "immutable"},
		{"too large", "POST", "/api/v1/boards/chess/scores", all, big, 413, "too_large"},
		{"missing score", "POST", "/api/v1/boards/chess/scores", all, `{"member":"bob"}`, 422, "invalid"},
		{"score too big", "POST", "/api/v1/boards/chess/scores", all, `{"member":"bob","score":1e300,"op":"set"}`, 422, "invalid"},
		{"bad member", "POST", "/api/v1/boards/chess/scores", all, `{"member":"","score":1}`, 422, "invalid"},
		{"bad op", "POST", "/api/v1/boards/chess/scores", all, `{"member":"bob","score":1,"op":"mul"}`, 422, "invalid"},
		{"invalid board", "POST", "/api/v1/boards", all, `{"id":"Bad Id","title":""}`, 422, "invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, out, hdr := f.Call(tc.method, tc.path, tc.key, tc.body)
			if status != tc.status || webtest.ErrCode(out) != tc.code {
				t.Fatalf("%s %s: %d %v, want %d %s", tc.method, tc.path, status, out, tc.status, tc.code)
			}
			if e, _ := out["error"].(map[string]any); e["message"] == "" {
				t.Fatal("error without a message")
			}
			if status == 401 && hdr.Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
		})
	}
	// Nothing above wrote anything.
	if _, out, _ := f.Call("GET", "/api/v1/boards/chess/entries", "", ""); len(out["entries"].([]any)) != 1 {
		t.Fatalf("a refused request wrote: %v", out)
	}
	// Validation errors name every field.
	_, out, _ := f.Call("POST", "/api/v1/boards", all, `{"id":"Bad Id","title":"","order":"up"}`)
	e := out["error"].(map[string]any)
	if fields := e["fields"].([]any); len(fields) < 3 {
		t.Fatalf("fields %v", fields)
	}
	// The scoped key writes its own board.
	if status, out, _ := f.Call("POST", "/api/v1/boards/chess/scores", chessOnly, `{"member":"bob","score":3}`); status != 200 {
		t.Fatalf("scoped write: %d %v", status, out)
	}
}

func TestAPISubmitBeforeAfterAndIdempotency(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}, map[string]float64{"ann": 50, "bob": 40, "cat": 30})
	key := f.Key("game server", "chess")
	body := `{"member":"cat","score":25,"name":"Cat Power"}`
	status, out, _ := f.Call("POST", "/api/v1/boards/chess/scores", key, body, "Idempotency-Key", "req-1")
	if status != 200 {
		t.Fatalf("%d %v", status, out)
	}
	res := out["result"].(map[string]any)
	all := res["periods"].([]any)[1].(map[string]any)
	if b, a := all["before"].(map[string]any), all["after"].(map[string]any); b["rank"] != 3.0 || a["rank"] != 1.0 || a["score"] != 55.0 {
		t.Fatalf("before/after: %v", all)
	}
	// The client retries after a timeout: applied once.
	status, out, _ = f.Call("POST", "/api/v1/boards/chess/scores", key, body, "Idempotency-Key", "req-1")
	if status != 200 || out["result"].(map[string]any)["replayed"] != true {
		t.Fatalf("retry: %d %v", status, out)
	}
	_, out, _ = f.Call("GET", "/api/v1/boards/chess/entries?period=all", "", "")
	top := out["entries"].([]any)[0].(map[string]any)
	if top["member"] != "cat" || top["score"] != 55.0 || top["name"] != "Cat Power" || top["score_text"] != "55" {
		t.Fatalf("after retry: %v", top)
	}
	// Reads: the member in every period, and around-me.
	_, out, _ = f.Call("GET", "/api/v1/boards/chess/members/cat", "", "")
	if ps := out["periods"].([]any); len(ps) != 2 || ps[0].(map[string]any)["rank"] != 1.0 {
		t.Fatalf("member: %v", out)
	}
	_, out, _ = f.Call("GET", "/api/v1/boards/chess/members/bob/around?period=all&radius=1", "", "")
	if es := out["entries"].([]any); len(es) != 3 || out["position"] != 2.0 {
		t.Fatalf("around: %v", out)
	}
	// Audit: the change, by the key, with before and after; not the replay.
	got, _, err := f.Admin.Audit.List(context.Background(), audit.Filter{Board: "chess"}, "", 10)
	var entries []audit.Entry
	for _, e := range got {
		if e.Actor != "test" { // the fixture's own writes
			entries = append(entries, e)
		}
	}
	if err != nil || len(entries) != 1 {
		t.Fatalf("audit %v %v", entries, err)
	}
	if e := entries[0]; !strings.HasPrefix(e.Actor, "key:game server (") || e.Action != "score.incr" || e.Before != "30 (rank 3)" || e.After != "55 (rank 1)" {
		t.Fatalf("audit entry %+v", e)
	}
}

func TestAPIBatchAllOrNothing(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, map[string]float64{"ann": 5})
	key := f.Key("importer", "")
	status, out, _ := f.Call("POST", "/api/v1/boards/chess/scores", key, `{"scores":[{"member":"bob","score":3},{"member":"","score":1},{"member":"cat","score":2}]}`)
	if status != 422 || webtest.ErrField(out) != "scores[1].member" {
		t.Fatalf("invalid item: %d %v", status, out)
	}
	status, out, _ = f.Call("POST", "/api/v1/boards/chess/scores", key, `{"scores":[{"member":"bob","score":3},{"member":"cat"}]}`)
	if status != 422 || webtest.ErrField(out) != "scores[1].score" {
		t.Fatalf("item without score: %d %v", status, out)
	}
	if _, out, _ := f.Call("GET", "/api/v1/boards/chess/entries", "", ""); len(out["entries"].([]any)) != 1 {
		t.Fatalf("refused batch wrote: %v", out)
	}
	status, out, _ = f.Call("POST", "/api/v1/boards/chess/scores", key, `{"scores":[{"member":"bob","score":3},{"member":"cat","score":9,"op":"set"},{"member":"bob","score":4}]}`, "Idempotency-Key", "import-7")
	if status != 200 || len(out["results"].([]any)) != 3 {
		t.Fatalf("batch: %d %v", status, out)
	}
	last := out["results"].([]any)[2].(map[string]any)["periods"].([]any)[0].(map[string]any)
	if last["after"].(map[string]any)["score"] != 7.0 {
		t.Fatalf("third item sees the first: %v", last)
	}
	f.Call("POST", "/api/v1/boards/chess/scores", key, `{"scores":[{"member":"bob","score":3},{"member":"cat","score":9,"op":"set"},{"member":"bob","score":4}]}`, "Idempotency-Key", "import-7")
	_, out, _ = f.Call("GET", "/api/v1/boards/chess/entries", "", "")
	var got []string
	for _, e := range out["entries"].([]any) {
		m := e.(map[string]any)
		got = append(got, m["member"].(string)+"="+strings.TrimSuffix(m["score_text"].(string), ".0"))
	}
	if !slices.Equal(got, []string{"cat=9", "bob=7", "ann=5"}) {
		t.Fatalf("after a retried batch: %v", got)
	}
}

func TestAPIBoardsAsCodeAndRemove(t *testing.T) {
	f := webtest.New(t)
	key := f.Key("terraform", "")
	def := `{"id":"sprint","title":"100 m","format":{"type":"duration"},"order":"lower","periods":["week","all"],"tie_break":"earliest","rank_style":"dense","fields":[{"name":"wind","desc":false}],"cap":100}`
	status, out, hdr := f.Call("POST", "/api/v1/boards", key, def)
	if status != 201 || hdr.Get("Location") != "/api/v1/boards/sprint" || out["rank_style"] != "dense" {
		t.Fatalf("create: %d %v", status, out)
	}
	status, out, _ = f.Call("PUT", "/api/v1/boards/sprint", key, strings.Replace(def, `"100 m"`, `"100 m dash"`, 1))
	if status != 200 || out["title"] != "100 m dash" {
		t.Fatalf("update: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/sprint", key, `{"title":"Sprint","periods":["week","all"],"format":{"type":"duration"}}`); status != 200 || out["tie_break"] != "earliest" || out["order"] != "lower" || len(out["fields"].([]any)) != 1 {
		t.Fatalf("update leaving fixed options out: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/sprint", key, strings.Replace(def, `"cap":100`, `"cap":100,"retention":0`, 1)); status != 200 || out["retention"] != 0.0 {
		t.Fatalf("retention 0: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/sprint", key, def); status != 200 || out["retention"] != 0.0 {
		t.Fatalf("retention left out is kept: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/sprint", key, strings.Replace(def, `"cap":100`, `"cap":100,"retention":-1`, 1)); status != 422 || out["error"].(map[string]any)["field"] != "retention" {
		t.Fatalf("retention -1: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/sprint", key, strings.Replace(def, `"id":"sprint"`, `"id":"other"`, 1)); status != 422 {
		t.Fatalf("changing the id: %d %v", status, out)
	}
	f.Call("POST", "/api/v1/boards/sprint/scores", key, `{"member":"usain","score":9580,"op":"best","fields":[1]}`)
	// at= alone names no period: refused, not read as "every period".
	if status, out, _ := f.Call("DELETE", "/api/v1/boards/sprint/members/usain?at=2026-W01", key, ""); status != 422 || out["error"].(map[string]any)["field"] != "period" {
		t.Fatalf("at without period: %d %v", status, out)
	}
	status, out, _ = f.Call("DELETE", "/api/v1/boards/sprint/members/usain?period=week", key, "")
	if status != 200 || len(out["removed"].([]any)) != 1 {
		t.Fatalf("remove from the week: %d %v", status, out)
	}
	if status, _, _ := f.Call("DELETE", "/api/v1/boards/sprint/members/usain?period=week", key, ""); status != 404 {
		t.Fatalf("remove again: %d", status)
	}
	if status, _, _ := f.Call("DELETE", "/api/v1/boards/sprint", key, ""); status != 204 {
		t.Fatalf("delete: %d", status)
	}
	if status, _, _ := f.Call("GET", "/api/v1/boards/sprint", "", ""); status != 404 {
		t.Fatal("deleted board still there")
	}
	actions := []string{}
	entries, _, _ := f.Admin.Audit.List(context.Background(), audit.Filter{Board: "sprint"}, "", 10)
	for _, e := range entries {
		actions = append(actions, e.Action)
	}
	if !slices.Equal(actions, []string{"board.delete", "member.remove", "score.best", "board.update", "board.update", "board.update", "board.update", "board.create"}) {
		t.Fatalf("audit actions %v", actions)
	}
}

func TestAPIRateLimits(t *testing.T) {
	f := webtest.New(t, webtest.Limits(3, 1000))
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	key := f.Key("spammy", "chess")
	for i := range 3 {
		if status, out, _ := f.Call("POST", "/api/v1/boards/chess/scores", key, `{"member":"a","score":1}`); status != 200 {
			t.Fatalf("request %d: %d %v", i, status, out)
		}
	}
	status, out, hdr := f.Call("POST", "/api/v1/boards/chess/scores", key, `{"member":"a","score":1}`)
	if status != 429 || webtest.ErrCode(out) != "rate_limited" || hdr.Get("Retry-After") == "" {
		t.Fatalf("over the key limit: %d %v %v", status, out, hdr)
	}
	// Another key is not limited by this one's use.
	if status, _, _ := f.Call("POST", "/api/v1/boards/chess/scores", f.Key("other", "chess"), `{"member":"a","score":1}`); status != 200 {
		t.Fatalf("other key: %d", status)
	}
	g := webtest.New(t, webtest.Limits(1000, 2))
	g.Call("GET", "/api/v1/boards", "", "")
	g.Call("GET", "/api/v1/boards", "", "")
	if status, _, hdr := g.Call("GET", "/api/v1/boards", "", ""); status != 429 || hdr.Get("Retry-After") == "" {
		t.Fatalf("over the address limit: %d", status)
	}
}
