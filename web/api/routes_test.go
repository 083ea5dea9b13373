package api_test

import (
	"testing"

	"podium/app"
	"podium/board"
	"podium/internal/webtest"
)

// TestAPICreatesBoardsInTheDefaultZone: a board made over the API without a
// time zone gets the server's DEFAULT_TZ, as the console's form does; one
// that names a zone keeps it.
func TestAPICreatesBoardsInTheDefaultZone(t *testing.T) {
	f := webtest.New(t, webtest.Configure(func(c *app.Config) { c.TimeZone = "Asia/Tokyo" }))
	key := f.Key("ops", "")
	for body, want := range map[string]string{
		`{"id":"darts","title":"Darts"}`:                          "Asia/Tokyo",
		`{"id":"golf","title":"Golf","time_zone":"Europe/Paris"}`: "Europe/Paris",
	} {
		status, got, _ := f.Call("POST", "/api/v1/boards", key, body)
		if status != 201 || got["time_zone"] != want {
			t.Errorf("%s: %d, time zone %v, want %s", body, status, got["time_zone"], want)
		}
	}
}

// TestAPIUnknownMethodIs405: a method the API does not serve on a path it
// serves is 405 with Allow and a JSON error naming what it answers; a path
// it does not serve at all is 404.
func TestAPIUnknownMethodIs405(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	key := f.Key("ops", "")
	for _, tc := range []struct {
		method, path, allow string
		status              int
		code                string
	}{
		{"PATCH", "/api/v1/boards/chess/scores", "POST", 405, "method_not_allowed"},
		{"GET", "/api/v1/boards/chess/scores", "POST", 405, "method_not_allowed"},
		{"PATCH", "/api/v1/boards/chess", "GET, HEAD, PUT, DELETE", 405, "method_not_allowed"},
		{"POST", "/api/v1/boards/chess/members/ann/around", "GET, HEAD", 405, "method_not_allowed"},
		{"PATCH", "/api/v1/no/such/route", "", 404, "not_found"},
	} {
		status, out, hdr := f.Call(tc.method, tc.path, key, "")
		e, _ := out["error"].(map[string]any)
		if status != tc.status || hdr.Get("Allow") != tc.allow || e["code"] != tc.code {
			t.Errorf("%s %s: %d Allow %q %v, want %d Allow %q %s", tc.method, tc.path, status, hdr.Get("Allow"), out, tc.status, tc.allow, tc.code)
		}
	}
	if n, _ := f.Store.Count(t.Context(), &board.Board{ID: "chess"}, board.Period{Kind: board.AllTime}); n != 0 {
		t.Fatalf("a refused method wrote %d scores", n)
	}
}
