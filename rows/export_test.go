package rows

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"podium/board"
)

// TestExportEdges: infinite scores (outside writers can store them) keep the
// JSON valid; text a spreadsheet would run is quoted, leading spaces or not.
func TestExportEdges(t *testing.T) {
	b := &board.Board{ID: "x", Title: "X", Format: board.Format{Type: board.Integer}}
	p := board.Period{Kind: board.AllTime}
	entries := []board.Entry{{Rank: 1, Member: "a", Name: " =cmd()", Score: math.Inf(1)}, {Rank: 2, Member: "b", Name: "B", Score: 5}}
	each := func(fn func([]board.Entry) error) error { return fn(entries) }
	var js bytes.Buffer
	if err := Export(&js, JSON, b, p, board.Segment{}, each); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Entries []map[string]any `json:"entries"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc.Entries) != 2 || doc.Entries[1]["raw_score"] != 5.0 {
		t.Fatalf("json %v: %s", err, js.String())
	}
	var csv bytes.Buffer
	if err := Export(&csv, CSV, b, p, board.Segment{}, each); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), "' =cmd()") {
		t.Fatalf("csv %s", csv.String())
	}
}
