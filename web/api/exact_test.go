package api_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestAPIExactNumbers: every value a board accepts comes back exactly as
// sent, in the API and on the page; anything it cannot keep exactly is a 422
// naming the field, with nothing written.
func TestAPIExactNumbers(t *testing.T) {
	f := webtest.New(t, webtest.Limits(10_000, 10_000))
	f.Board(board.Board{ID: "ints", Title: "Ints"}, nil)
	f.Board(board.Board{ID: "cents", Title: "Cents", Format: board.Format{Type: board.Decimal, Decimals: 2}}, nil)
	f.Board(board.Board{ID: "micro", Title: "Micro", Format: board.Format{Type: board.Decimal, Decimals: 6}}, nil)
	key := f.Key("game", "")
	tests := []struct {
		board, score string
		status       int
		shown        string // the score's JSON text in the entries, "" when refused
	}{
		{"ints", "9007199254740992", 200, "9007199254740992"},
		{"ints", "9007199254740993", 422, ""},
		{"ints", "-9007199254740992", 200, "-9007199254740992"},
		{"ints", "1e3", 200, "1000"},
		{"ints", "1.5", 422, ""},
		{"ints", "1e400", 422, ""},
		{"cents", "90071992547409.01", 200, "90071992547409.01"},
		{"cents", "90071992547409.92", 200, "90071992547409.92"},
		{"cents", "90071992547409.93", 422, ""},
		{"cents", "0.105", 422, ""},
		{"cents", "-0.07", 200, "-0.07"},
		{"micro", "9007199254.740992", 200, "9007199254.740992"},
		{"micro", "9007199254.740993", 422, ""},
		{"micro", "0.000001", 200, "0.000001"},
	}
	for i, tc := range tests {
		member := "m" + strings.Repeat("x", i)
		body := `{"member":"` + member + `","score":` + tc.score + `,"op":"set"}`
		status, out := f.RawCall("POST", "/api/v1/boards/"+tc.board+"/scores", key, strings.NewReader(body))
		if status != tc.status {
			t.Errorf("%s %s: %d %s", tc.board, tc.score, status, out)
			continue
		}
		_, entry := f.RawCall("GET", "/api/v1/boards/"+tc.board+"/members/"+member, "", nil)
		if tc.shown == "" {
			if !strings.Contains(out, `"field":"score"`) {
				t.Errorf("%s %s: refusal does not name the field: %s", tc.board, tc.score, out)
			}
			if !strings.Contains(entry, "member_not_found") {
				t.Errorf("%s %s: refused but written: %s", tc.board, tc.score, entry)
			}
			continue
		}
		if !strings.Contains(out, `"score":`+tc.shown+`,`) || !strings.Contains(entry, `"score":`+tc.shown+`,`) {
			t.Errorf("%s %s: want %s back, got\n%s\n%s", tc.board, tc.score, tc.shown, out, entry)
		}
	}
	// The page shows the same digits.
	_, page := f.RawCall("GET", "/api/v1/boards/cents/entries?limit=5", "", nil)
	if !strings.Contains(page, `"score_text":"90,071,992,547,409.01"`) {
		t.Errorf("entries: %s", page)
	}
}

// TestAPIHonestSubmitErrors: refusals say what is wrong with this request,
// with a status that fits, and write nothing.
func TestAPIHonestSubmitErrors(t *testing.T) {
	f := webtest.New(t, webtest.Limits(10_000, 10_000))
	f.Board(board.Board{ID: "chess", Title: "Chess"}, map[string]float64{"ann": 5})
	key := f.Key("game", "")
	post := func(body string, hdr ...string) (int, map[string]any) {
		status, out, _ := f.Call("POST", "/api/v1/boards/chess/scores", key, body, hdr...)
		return status, out
	}
	// A single submission names its own field, not a batch's.
	status, out := post(`{"member":"bob","score":-1}`)
	if msg, _ := out["error"].(map[string]any)["message"].(string); status != 422 || webtest.ErrField(out) != "score" || strings.Contains(msg, "item 0") || strings.Contains(msg, "scores[") {
		t.Errorf("single: %d %v", status, out)
	}
	// Idempotency keys: a true retry replays, another request with the key is 422.
	if status, out := post(`{"member":"bob","score":3}`, "Idempotency-Key", "k-1"); status != 200 {
		t.Fatalf("first: %d %v", status, out)
	}
	if status, out := post(`{"member":"bob","score":3}`, "Idempotency-Key", "k-1"); status != 200 || out["result"].(map[string]any)["replayed"] != true {
		t.Fatalf("retry: %d %v", status, out)
	}
	for _, body := range []string{`{"member":"cat","score":3}`, `{"member":"bob","score":4}`, `{"member":"bob","score":3,"op":"set"}`} {
		if status, out := post(body, "Idempotency-Key", "k-1"); status != 422 || webtest.ErrCode(out) != "idempotency_key_reused" {
			t.Errorf("%s with a used key: %d %v", body, status, out)
		}
	}
	batch := `{"scores":[{"member":"dan","score":1},{"member":"eve","score":2}]}`
	if status, out := post(batch, "Idempotency-Key", "b-1"); status != 200 {
		t.Fatalf("batch: %d %v", status, out)
	}
	if status, out := post(`{"scores":[{"member":"dan","score":1}]}`, "Idempotency-Key", "b-1"); status != 422 || webtest.ErrCode(out) != "idempotency_key_reused" {
		t.Errorf("another batch with a used key: %d %v", status, out)
	}
	// Invalid UTF-8 would become U+FFFD and merge two members: 400.
	if status, out := post("{\"member\":\"a\xffb\",\"score\":1}"); status != 400 || webtest.ErrCode(out) != "bad_utf8" {
		t.Errorf("invalid UTF-8: %d %v", status, out)
	}
	// Invisible and bidi characters in ids; bidi controls in names.
	for _, body := range []string{`{"member":"a\u200bb","score":1}`, `{"member":"a\u202eb","score":1}`, `{"member":"zed","score":1,"name":"x\u202etxt.exe"}`} {
		if status, out := post(body); status != 422 {
			t.Errorf("%s: %d %v", body, status, out)
		}
	}
	// Over the body limit is 413 with a length and chunked alike.
	big := `{"member":"x","name":"` + strings.Repeat("a", 2<<20) + `","score":1}`
	if status, out := f.RawCall("POST", "/api/v1/boards/chess/scores", key, strings.NewReader(big)); status != 413 || !strings.Contains(out, "too_large") {
		t.Errorf("with a length: %d %.200s", status, out)
	}
	if status, out := f.RawCall("POST", "/api/v1/boards/chess/scores", key, io.MultiReader(strings.NewReader(big))); status != 413 || !strings.Contains(out, "too_large") {
		t.Errorf("chunked: %d %.200s", status, out)
	}
	// Nothing refused was written.
	pg, err := f.Store.Page(context.Background(), &board.Board{ID: "chess", Periods: []board.Kind{board.AllTime}, Order: board.HigherIsBetter, TieBreak: board.Earliest, RankStyle: board.Competition}, board.Period{Kind: board.AllTime}, 0, 10)
	if err != nil || pg.Total != 4 {
		t.Fatalf("members after the refusals: %d %v", pg.Total, err)
	}
}
