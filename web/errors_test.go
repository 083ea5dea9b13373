package web_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
	"podium/redisstore"
	"podium/web"
)

// TestPeriodYearRange: periods whose start or end falls outside years
// 0001-9999 are refused with a 4xx that says so (their end cannot be written
// as JSON), on the API and on every page that takes a period; the edge
// periods themselves work and offer no link to a period beyond.
func TestPeriodYearRange(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "edge", Title: "Edge", Periods: board.Kinds, Schedule: "0 18 * * FRI"}, map[string]float64{"ann": 1})
	const why = "within years 0001-9999"
	api := []struct {
		name, method, path string
		status             int
		says               string
	}{
		{"last day", "GET", "/api/v1/boards/edge/entries?period=day&at=9999-12-31", 404, why},
		{"last week", "GET", "/api/v1/boards/edge/entries?period=week&at=9999-W52", 404, why},
		{"last month", "GET", "/api/v1/boards/edge/entries?period=month&at=9999-12", 404, why},
		{"last year", "GET", "/api/v1/boards/edge/entries?period=year&at=9999", 404, why},
		{"year zero", "GET", "/api/v1/boards/edge/entries?period=day&at=0000-12-31", 404, why},
		{"around", "GET", "/api/v1/boards/edge/members/ann/around?period=day&at=9999-12-31", 404, why},
		{"member removal", "DELETE", "/api/v1/boards/edge/members/ann?period=day&at=9999-12-31", 404, why},
		{"day before the last", "GET", "/api/v1/boards/edge/entries?period=day&at=9999-12-30", 200, ""},
		{"week before the last", "GET", "/api/v1/boards/edge/entries?period=week&at=9999-W51", 200, ""},
		{"first day", "GET", "/api/v1/boards/edge/entries?period=day&at=0001-01-01", 200, ""},
		{"first year", "GET", "/api/v1/boards/edge/entries?period=year&at=0001", 200, ""},
	}
	key := f.Key("ops", "")
	for _, tc := range api {
		t.Run("api/"+tc.name, func(t *testing.T) {
			status, out, _ := f.Call(tc.method, tc.path, key, "")
			e, _ := out["error"].(map[string]any)
			msg, _ := e["message"].(string)
			if status != tc.status || !strings.Contains(msg, tc.says) {
				t.Fatalf("%s %s: %d %v, want %d with %q", tc.method, tc.path, status, out, tc.status, tc.says)
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
			res, body := f.Get(tc.path)
			if res.StatusCode != tc.status || !strings.Contains(body, tc.says) {
				t.Fatalf("GET %s: %d, want %d with %q in:\n%s", tc.path, res.StatusCode, tc.status, tc.says, webtest.Excerpt(body))
			}
			if tc.not != "" && strings.Contains(body, tc.not) {
				t.Fatalf("GET %s links to %s, a period no page can show", tc.path, tc.not)
			}
		})
	}
	// The live handshake checks the view like the pages do.
	fl := &fakeLive{}
	h := web.New(web.Options{Store: f.Store, Live: fl, Logger: webtest.Quiet})
	if rec := webtest.Record(h, httptest.NewRequest("GET", "/live?board=edge&period=day&at=9999-12-31", nil)); rec.Code != 404 || len(fl.specs) != 0 {
		t.Fatalf("/live at 9999-12-31: %d, %d upgrades", rec.Code, len(fl.specs))
	}
}

// TestPagesAndAPIAgree: a domain error gets one status whichever surface
// answers (the table of request.Classify): the page and the API read of the
// same thing fail alike, and the API names the error's code.
func TestPagesAndAPIAgree(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}, map[string]float64{"ann": 1})
	f.Board(board.Board{ID: "league", Title: "League", Teams: board.TeamsSum}, nil)
	// A closed week whose keys expired to an archive this server does not have.
	if err := webtest.Redis(t).HSet(t.Context(), redisstore.ArchiveState("chess"), "week:2026-W50", "0 1"+redisstore.ExpiredMark).Err(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, api, page string
		status          int
		code            string
	}{
		{"unknown board", "/boards/nope/entries", "/b/nope", 404, "board_not_found"},
		{"period the board does not keep", "/boards/chess/entries?period=day", "/b/chess?period=day", 404, "period_not_found"},
		{"no such period", "/boards/chess/entries?period=week&at=2026-W99", "/b/chess?period=week&at=2026-W99", 404, "period_not_found"},
		{"period gone", "/boards/chess/entries?period=week&at=2026-W50", "/b/chess?period=week&at=2026-W50", 410, "period_gone"},
		{"invalid member", "/boards/chess/members/%0A", "/b/chess/m/%0A", 422, "invalid"},
		{"invalid member around", "/boards/chess/members/%0A/around", "/b/chess/around/%0A", 422, "invalid"},
		{"member not ranked", "/boards/chess/members/zed/around?period=all", "/b/chess/around/zed?period=all", 404, "member_not_found"},
		{"invalid team", "/boards/league/teams/%0A", "/b/league/teams/%0A", 422, "invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, out, _ := f.Call("GET", "/api/v1"+tc.api, "", "")
			if status != tc.status || webtest.ErrCode(out) != tc.code {
				t.Errorf("API %s: %d %v, want %d %s", tc.api, status, out, tc.status, tc.code)
			}
			if res, body := f.Get(tc.page); res.StatusCode != tc.status {
				t.Errorf("page %s: %d, want %d:\n%s", tc.page, res.StatusCode, tc.status, webtest.Excerpt(body))
			}
		})
	}
}
