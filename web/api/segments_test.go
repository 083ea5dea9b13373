package api_test

import (
	"fmt"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// rowsOf writes an entries answer as "member rank/global_rank" rows.
func rowsOf(out map[string]any) string {
	var rows []string
	es, _ := out["entries"].([]any)
	for _, e := range es {
		m := e.(map[string]any)
		rows = append(rows, fmt.Sprintf("%v %v/%v", m["member"], m["rank"], m["global_rank"]))
	}
	return strings.Join(rows, " ")
}

// TestAPISegments: scores carry values, a filtered page ranks among the
// segment with the global rank beside, a member's answer gives its values
// and its ranks within them, and a PUT moves a member with its scores.
func TestAPISegments(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "geo", Title: "Geo", Segments: []string{"country"}}, nil)
	key := f.Key("geo", "geo")
	for _, s := range []string{
		`{"scores":[{"member":"ann","score":30,"segments":{"country":"NO"}},{"member":"bob","score":20,"segments":{"country":"SE"}},` +
			`{"member":"cy","score":20,"segments":{"country":"NO"}},{"member":"dee","score":10,"segments":{"country":"NO"}},{"member":"eve","score":5}]}`,
	} {
		if status, out, _ := f.Call("POST", "/api/v1/boards/geo/scores", key, s); status != 200 {
			t.Fatalf("submit: %d %v", status, out)
		}
	}
	status, out, _ := f.Call("GET", "/api/v1/boards/geo/entries?segment=country:NO", "", "")
	if got := rowsOf(out); status != 200 || got != "ann 1/1 cy 2/2 dee 3/4" || out["total"] != 3.0 {
		t.Fatalf("NO: %d %q %v", status, got, out)
	}
	if seg, _ := out["segment"].(map[string]any); seg["attribute"] != "country" || seg["value"] != "NO" {
		t.Fatalf("segment: %v", out["segment"])
	}
	_, out, _ = f.Call("GET", "/api/v1/boards/geo/entries?segment=country:NO&offset=1&limit=1", "", "")
	if got := rowsOf(out); got != "cy 2/2" {
		t.Fatalf("NO from 1: %q", got)
	}
	_, out, _ = f.Call("GET", "/api/v1/boards/geo/members/dee", "", "")
	ps, _ := out["periods"].([]any)
	if segs, _ := out["segments"].(map[string]any); segs["country"] != "NO" || len(ps) != 1 || !strings.Contains(fmt.Sprint(ps[0]), "segment_ranks:[map[attribute:country rank:3 total:3 value:NO]]") {
		t.Fatalf("dee: %v", out)
	}
	// Around a member within its segment: ranks and position among the
	// segment, the window sliding to stay full; not in the segment: 404.
	status, out, _ = f.Call("GET", "/api/v1/boards/geo/members/dee/around?segment=country:NO&radius=1", "", "")
	if got := rowsOf(out); status != 200 || got != "ann 1/1 cy 2/2 dee 3/4" || out["position"] != 2.0 || out["offset"] != 0.0 || out["total"] != 3.0 {
		t.Fatalf("around dee in NO: %d %q %v", status, got, out)
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/geo/members/bob/around?segment=country:NO", "", ""); status != 404 || webtest.ErrCode(out) != "member_not_found" {
		t.Fatalf("around bob in NO: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/geo/members/cy/segments", key, `{"segments":{"country":"SE"}}`); status != 200 || out["changed"] != true {
		t.Fatalf("move: %d %v", status, out)
	}
	_, out, _ = f.Call("GET", "/api/v1/boards/geo/entries?segment=country:SE", "", "")
	if got := rowsOf(out); got != "bob 1/2 cy 1/2" {
		t.Fatalf("SE after the move: %q", got)
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/geo/entries?segment=country", "", ""); status != 400 || webtest.ErrField(out) != "segment" {
		t.Fatalf("a filter without a value: %d %v", status, out)
	}
	// An update that leaves segments out keeps them, and their standings.
	if status, out, _ := f.Call("PUT", "/api/v1/boards/geo", f.Key("ops", ""), `{"title":"Geography"}`); status != 200 || fmt.Sprint(out["segments"]) != "[country]" {
		t.Fatalf("update: %d %v", status, out)
	}
	if _, out, _ = f.Call("GET", "/api/v1/boards/geo/entries?segment=country:SE", "", ""); rowsOf(out) != "bob 1/2 cy 1/2" {
		t.Fatalf("SE after the update: %v", out)
	}
}

// TestAPISegmentsUnderAPrivacyMode: a filtered page shows a reader without
// a key what the plain page shows them: the top N of the whole period,
// named as there, without counting the rest.
func TestAPISegmentsUnderAPrivacyMode(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "geo", Title: "Geo", Segments: []string{"country"}, Names: board.Pseudonyms, TopOnly: 2}, nil)
	key := f.Key("geo", "geo")
	body := `{"scores":[{"member":"ann","score":30,"segments":{"country":"SE"}},{"member":"bob","score":20,"segments":{"country":"NO"}},` +
		`{"member":"cy","score":10,"segments":{"country":"NO"}}]}`
	if status, out, _ := f.Call("POST", "/api/v1/boards/geo/scores", key, body); status != 200 {
		t.Fatalf("submit: %d %v", status, out)
	}
	_, out, _ := f.Call("GET", "/api/v1/boards/geo/entries?segment=country:NO", "", "")
	es, _ := out["entries"].([]any)
	if len(es) != 1 || out["total"] != 1.0 {
		t.Fatalf("anonymous: %v", out)
	}
	if m := es[0].(map[string]any); !strings.HasPrefix(fmt.Sprint(m["member"]), "anon-") || m["rank"] != 1.0 || m["global_rank"] != 2.0 {
		t.Fatalf("anonymous row: %v", m)
	}
	_, out, _ = f.Call("GET", "/api/v1/boards/geo/entries?segment=country:NO", key, "")
	if got := rowsOf(out); got != "bob 1/2 cy 2/3" || out["total"] != 2.0 {
		t.Fatalf("with a key: %q %v", got, out)
	}
	// Around within a segment: another member is as unknown as on the
	// plain around (the privacy mode hides who has a score).
	if status, out, _ := f.Call("GET", "/api/v1/boards/geo/members/cy/around?segment=country:NO", "", ""); status != 404 {
		t.Fatalf("anonymous around cy: %d %v", status, out)
	}
	if _, out, _ = f.Call("GET", "/api/v1/boards/geo/members/cy/around?segment=country:NO", key, ""); rowsOf(out) != "bob 1/2 cy 2/3" || out["position"] != 1.0 {
		t.Fatalf("around cy with a key: %v", out)
	}
}
