package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestBoardPeriodsRequired: "periods": [] is refused with 422 naming the
// field, on create and on update, and nothing changes; leaving periods out of
// a new board keeps the default (all time).
func TestBoardPeriodsRequired(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}, nil)
	key := f.Key("ops", "")
	tests := []struct {
		name, method, path, body string
		status                   int
		field                    string
		periods                  string // of the board afterwards, "" when it must not exist
	}{
		{"update with none", "PUT", "/api/v1/boards/chess", `{"title":"Chess","periods":[]}`, 422, "periods", "week,all"},
		{"create with none", "POST", "/api/v1/boards", `{"id":"go","title":"Go","periods":[]}`, 422, "periods", ""},
		{"create without the field", "POST", "/api/v1/boards", `{"id":"golf","title":"Golf"}`, 201, "", "all"},
		{"update with one", "PUT", "/api/v1/boards/chess", `{"title":"Chess","periods":["day"]}`, 200, "", "day"},
		{"update without the field keeps them", "PUT", "/api/v1/boards/chess", `{"title":"Chess club"}`, 200, "", "day"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, out, _ := f.Call(tc.method, tc.path, key, tc.body)
			if status != tc.status || webtest.ErrField(out) != tc.field {
				t.Fatalf("%s %s %s: %d %v, want %d field %q", tc.method, tc.path, tc.body, status, out, tc.status, tc.field)
			}
			if e, _ := out["error"].(map[string]any); e != nil && !strings.Contains(e["message"].(string), "at least one period") {
				t.Fatalf("message %q", e["message"])
			}
			var id struct{ ID string }
			_ = json.Unmarshal([]byte(tc.body), &id)
			if id.ID == "" {
				id.ID = "chess"
			}
			b, err := f.Store.Board(t.Context(), id.ID)
			var kinds []string
			for _, k := range b.Periods {
				kinds = append(kinds, string(k))
			}
			got := strings.Join(kinds, ",")
			if err != nil && tc.periods != "" || got != tc.periods {
				t.Fatalf("board %s afterwards: periods %q (%v), want %q", id.ID, got, err, tc.periods)
			}
		})
	}
}

// TestBoardPrivacyOptions: names and top_only are part of the definition:
// set on create, kept when an update leaves them out, changed when it
// names them, refused with 422 naming the field when out of range.
func TestBoardPrivacyOptions(t *testing.T) {
	f := webtest.New(t)
	key := f.Key("ops", "")
	steps := []struct {
		method, path, body string
		status             int
		field              string
		names              board.NameMode
		top                int
	}{
		{"POST", "/api/v1/boards", `{"id":"class","title":"Class 4B","names":"initials","top_only":5}`, 201, "", board.Initials, 5},
		{"PUT", "/api/v1/boards/class", `{"title":"Class 4B"}`, 200, "", board.Initials, 5},
		{"PUT", "/api/v1/boards/class", `{"title":"Class 4B","names":"pseudonyms","top_only":0}`, 200, "", board.Pseudonyms, 0},
		{"PUT", "/api/v1/boards/class", `{"title":"Class 4B","names":"nicknames"}`, 422, "names", board.Pseudonyms, 0},
		{"PUT", "/api/v1/boards/class", `{"title":"Class 4B","top_only":101}`, 422, "top_only", board.Pseudonyms, 0},
		{"PUT", "/api/v1/boards/class", `{"title":"Class 4B","names":"full"}`, 200, "", board.FullNames, 0},
	}
	for _, st := range steps {
		status, out, _ := f.Call(st.method, st.path, key, st.body)
		if status != st.status || webtest.ErrField(out) != st.field {
			t.Fatalf("%s %s: %d %v, want %d field %q", st.method, st.body, status, out, st.status, st.field)
		}
		b := f.MustBoard(t, "class")
		if b.Names != st.names || b.TopOnly != st.top {
			t.Fatalf("after %s: names %q top %d, want %q %d", st.body, b.Names, b.TopOnly, st.names, st.top)
		}
		if status < 300 && (out["names"] != string(st.names) || (st.top > 0) != (out["top_only"] != nil)) {
			t.Fatalf("answer to %s: names %v top_only %v", st.body, out["names"], out["top_only"])
		}
	}
}
