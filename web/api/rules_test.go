package api_test

import (
	"strings"
	"testing"

	"podium/internal/webtest"
)

// TestAPIRules: a board's rules round-trip; a score past one is 422
// rule_broken naming it, with nothing written; on a board that holds, it
// is answered 202 held with the rule and nothing applied; an update
// without rules keeps them and {} takes them off.
func TestAPIRules(t *testing.T) {
	f := webtest.New(t)
	key := f.Key("ops", "")
	status, out, _ := f.Call("POST", "/api/v1/boards", key, `{"id":"game","title":"Game","format":{"type":"decimal","decimals":2},"rules":{"max_value":1000,"max_score":1500}}`)
	rules, _ := out["rules"].(map[string]any)
	if status != 201 || rules["max_value"] != 1000.0 || rules["max_score"] != 1500.0 {
		t.Fatalf("create: %d %v", status, out)
	}
	if status, out, _ := f.Call("POST", "/api/v1/boards/game/scores", key, `{"member":"ann","score":10.00}`); status != 200 {
		t.Fatalf("at max_value (10.00 in units of 0.01): %d %v", status, out)
	}
	status, out, _ = f.Call("POST", "/api/v1/boards/game/scores", key, `{"member":"ann","score":10.01}`)
	if status != 422 || webtest.ErrCode(out) != "rule_broken" || !strings.Contains(webtest.ErrMessage(out), "max_value (a value of at most 10)") {
		t.Fatalf("past max_value: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/game", key, `{"title":"Game","format":{"type":"decimal","decimals":2},"rules":{"max_value":1000,"max_score":1500,"on_break":"hold"}}`); status != 200 {
		t.Fatalf("update: %d %v", status, out)
	}
	status, out, _ = f.Call("POST", "/api/v1/boards/game/scores", key, `{"member":"ann","score":5.01}`)
	res, _ := out["result"].(map[string]any)
	if status != 202 || res["held"] != true || res["rule"] != "max_score" || len(res["periods"].([]any)) != 0 {
		t.Fatalf("held: %d %v", status, out)
	}
	if _, body := f.RawCall("GET", "/api/v1/boards/game/entries", "", nil); !strings.Contains(body, `"score_text":"10.00"`) {
		t.Fatalf("a held score was applied: %s", body)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/game", key, `{"title":"Game 2","format":{"type":"decimal","decimals":2}}`); status != 200 || out["rules"] == nil {
		t.Fatalf("an update without rules: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/game", key, `{"title":"Game","format":{"type":"decimal","decimals":2},"rules":{}}`); status != 200 || out["rules"] != nil {
		t.Fatalf("rules taken off: %d %v", status, out)
	}
}
