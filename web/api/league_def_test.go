package api_test

import (
	"fmt"
	"testing"

	"podium/internal/webtest"
)

// TestAPILeagueDefinition: a board made with a league answers it; a PUT
// that leaves "league" out keeps it, null takes it off; a league the
// board cannot run is refused with the field named.
func TestAPILeagueDefinition(t *testing.T) {
	f := webtest.New(t)
	key := f.Key("ops", "")
	league := `{"kind":"week","tiers":["Bronze","Silver","Gold"],"cohort_size":10,"promote":3,"relegate":2}`
	def := `{"id":"ladder","title":"Ladder","format":{"type":"integer"},"periods":["week","all"]`
	status, out, _ := f.Call("POST", "/api/v1/boards", key, def+`,"league":`+league+`}`)
	if got := fmt.Sprint(out["league"]); status != 201 || got != "map[cohort_size:10 kind:week promote:3 relegate:2 tiers:[Bronze Silver Gold]]" {
		t.Fatalf("create: %d %v", status, out)
	}
	if status, out, _ = f.Call("PUT", "/api/v1/boards/ladder", key, `{"title":"Ladder 2"}`); status != 200 || out["league"] == nil {
		t.Fatalf("PUT without league: %d %v", status, out)
	}
	if status, out, _ = f.Call("GET", "/api/v1/boards/ladder", "", ""); status != 200 || out["league"] == nil || out["title"] != "Ladder 2" {
		t.Fatalf("read back: %d %v", status, out)
	}
	if status, out, _ = f.Call("PUT", "/api/v1/boards/ladder", key, `{"title":"Ladder","league":null}`); status != 200 || out["league"] != nil {
		t.Fatalf("PUT null: %d %v", status, out)
	}
	for _, c := range []struct{ name, league, field string }{
		{"a kind the board does not keep", `{"kind":"month","tiers":["A","B"],"promote":1,"relegate":1}`, "league.kind"},
		{"one tier", `{"kind":"week","tiers":["A"],"promote":1,"relegate":1}`, "league.tiers"},
		{"moves larger than a cohort", `{"kind":"week","tiers":["A","B"],"cohort_size":4,"promote":3,"relegate":2}`, "league.promote"},
	} {
		status, out, _ := f.Call("PUT", "/api/v1/boards/ladder", key, `{"title":"Ladder","league":`+c.league+`}`)
		if e, _ := out["error"].(map[string]any); status != 422 || e["field"] != c.field {
			t.Errorf("%s: %d %v", c.name, status, out)
		}
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/ladder", key, `{"title":"Ladder","league":{"kind":"week","tiers":["A","B"],"promote":1,"relegate":1,"extra":1}}`); status != 400 {
		t.Errorf("an unknown field: %d %v", status, out)
	}
}
