package api_test

import (
	"context"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestAPIRefusesWhatTheDocumentRefuses: inputs the manual and the OpenAPI
// document say are refused are refused on every route that takes them, with
// a status that fits and the field named, and nothing is written.
func TestAPIRefusesWhatTheDocumentRefuses(t *testing.T) {
	f := webtest.New(t, webtest.Limits(10_000, 10_000))
	f.Board(board.Board{ID: "chess", Title: "Chess", Teams: board.TeamsSum}, map[string]float64{"ann": 5})
	key := f.Key("admin", "")
	ctx := context.Background()

	tests := []struct {
		name, method, path, body string
		status                   int
		code, field              string
	}{
		// Scores are JSON numbers: a string holding one is not a score.
		{"string score", "POST", "/api/v1/boards/chess/scores", `{"member":"s1","score":"12"}`, 422, "invalid", "score"},
		{"string exponent", "POST", "/api/v1/boards/chess/scores", `{"member":"s1","score":"1e2"}`, 422, "invalid", "score"},
		{"string score in a batch", "POST", "/api/v1/boards/chess/scores", `{"scores":[{"member":"s1","score":1},{"member":"s2","score":"12"}]}`, 422, "invalid", "scores[1].score"},
		{"boolean score", "POST", "/api/v1/boards/chess/scores", `{"member":"s1","score":true}`, 422, "invalid", "score"},
		{"object score", "POST", "/api/v1/boards/chess/scores", `{"member":"s1","score":{}}`, 422, "invalid", "score"},
		{"null score", "POST", "/api/v1/boards/chess/scores", `{"member":"s1","score":null}`, 422, "invalid", "score"},
		// An empty team on a submission is ambiguous: refused.
		{"empty team", "POST", "/api/v1/boards/chess/scores", `{"member":"s1","score":1,"team":""}`, 422, "invalid", "team"},
		{"empty team in a batch", "POST", "/api/v1/boards/chess/scores", `{"scores":[{"member":"s1","score":1,"team":""}]}`, 422, "invalid", "scores[0].team"},
		// Invalid UTF-8 would be stored as U+FFFD: 400 on every JSON body.
		{"invalid UTF-8 title", "POST", "/api/v1/boards", "{\"id\":\"utf\",\"title\":\"a\xffb\"}", 400, "bad_utf8", ""},
		{"invalid UTF-8 board PUT", "PUT", "/api/v1/boards/chess", "{\"title\":\"a\xffb\",\"teams\":\"sum\"}", 400, "bad_utf8", ""},
		{"invalid UTF-8 team", "PUT", "/api/v1/boards/chess/members/ann/team", "{\"team\":\"r\xffd\"}", 400, "bad_utf8", ""},
		{"invalid UTF-8 freeze reason", "PUT", "/api/v1/boards/chess/freeze", "{\"reason\":\"x\xff\"}", 400, "bad_utf8", ""},
		// A lone surrogate escape is valid UTF-8 on the wire but decodes to
		// U+FFFD, as invalid bytes would: "a\ud800" and "a\udfff" would be one id.
		{"lone surrogate member", "POST", "/api/v1/boards/chess/scores", `{"member":"a\ud800","score":1}`, 422, "invalid", "member"},
		{"lone surrogate name", "POST", "/api/v1/boards/chess/scores", `{"member":"s1","score":1,"name":"x\udfff"}`, 422, "invalid", "name"},
		{"lone surrogate team", "POST", "/api/v1/boards/chess/scores", `{"member":"s1","score":1,"team":"r\ud800"}`, 422, "invalid", "team"},
		{"lone surrogate title", "POST", "/api/v1/boards", `{"id":"utf","title":"a\ud800"}`, 422, "invalid", "title"},
		// Bidi controls in titles, as in member ids and names.
		{"bidi title", "POST", "/api/v1/boards", `{"id":"bidi","title":"Scores \u202etxt.exe"}`, 422, "invalid", "title"},
		{"bidi prefix", "POST", "/api/v1/boards", `{"id":"bidi","title":"Scores","format":{"type":"integer","prefix":"\u2066$"}}`, 422, "invalid", "format.prefix"},
		// Go's zero time is a time in the past, not "now".
		{"freeze at the zero time", "PUT", "/api/v1/boards/chess/freeze", `{"at":"0001-01-01T00:00:00Z"}`, 422, "invalid", "at"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, out, _ := f.Call(tc.method, tc.path, key, tc.body)
			if status != tc.status || webtest.ErrCode(out) != tc.code || webtest.ErrField(out) != tc.field {
				t.Errorf("%d %s field %q, want %d %s field %q: %v", status, webtest.ErrCode(out), webtest.ErrField(out), tc.status, tc.code, tc.field, out)
			}
		})
	}

	// Nothing refused was written.
	b, err := f.Store.Board(ctx, "chess")
	if err != nil {
		t.Fatal(err)
	}
	if b.Title != "Chess" || !b.FreezeAt.IsZero() {
		t.Errorf("chess changed: title %q, freeze_at %v", b.Title, b.FreezeAt)
	}
	for _, id := range []string{"utf", "bidi"} {
		if _, err := f.Store.Board(ctx, id); err == nil {
			t.Errorf("board %q was created", id)
		}
	}
	pg, err := f.Store.Page(ctx, &b, board.Period{Kind: board.AllTime}, 0, 10)
	if err != nil || pg.Total != 1 {
		t.Errorf("members after the refusals: %d %v", pg.Total, err)
	}
	if team, err := f.Store.TeamOf(ctx, &b, "ann"); err != nil || team != "" {
		t.Errorf("ann's team: %q %v", team, err)
	}

	// What stays accepted: a number, and a submission without a team.
	if status, out, _ := f.Call("POST", "/api/v1/boards/chess/scores", key, `{"member":"s1","score":12,"team":"red"}`); status != 200 {
		t.Errorf("a number with a team: %d %v", status, out)
	}
	if status, out, _ := f.Call("POST", "/api/v1/boards/chess/scores", key, `{"member":"s1","score":-1e1,"op":"set"}`); status != 200 || !strings.Contains(out["result"].(map[string]any)["member"].(string), "s1") {
		t.Errorf("a negative exponent: %d %v", status, out)
	}
	if team, _ := f.Store.TeamOf(ctx, &b, "s1"); team != "red" {
		t.Errorf("s1 left its team on a submission without one: %q", team)
	}
}
