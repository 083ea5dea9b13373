package api_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
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

// TestAPIHead: HEAD on the API's reads answers as GET, without a body.
func TestAPIHead(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, map[string]float64{"ann": 5})
	for _, path := range []string{"/api/v1/boards", "/api/v1/boards/chess", "/api/v1/boards/chess/entries", "/api/v1/boards/chess/members/ann",
		"/api/v1/boards/chess/members/ann/around", "/api/v1/openapi.json"} {
		res, err := http.Head(f.URL + path)
		if err != nil || res.StatusCode != 200 || res.Header.Get("Content-Type") == "" {
			t.Errorf("HEAD %s: %v %v", path, res.StatusCode, err)
		}
	}
	if res, _ := http.Head(f.URL + "/api/v1/boards/nope"); res.StatusCode != 404 {
		t.Errorf("HEAD of a missing board: %d", res.StatusCode)
	}
}

// TestAPIBodyTooLarge: a body over the limit is a 413 too_large whether it
// says its length or comes chunked (when BodyLimit only notices while the
// handler reads), and nothing is written.
func TestAPIBodyTooLarge(t *testing.T) {
	f := webtest.New(t)
	key := f.Key("ops", "")
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
			req, _ := http.NewRequest("POST", f.URL+"/api/v1/boards", body)
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
			if res.StatusCode != 413 || webtest.ErrCode(out) != "too_large" || !strings.Contains(e["message"].(string), "limit of 1MB") {
				t.Fatalf("%s: %d %v", tc.name, res.StatusCode, out)
			}
			if _, err := f.Store.Board(t.Context(), "big"); !errors.Is(err, board.ErrNotFound) {
				t.Fatalf("a refused body wrote a board: %v", err)
			}
		})
	}
}
