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

// TestExportTierNames: a league's tier names, which the board's owner
// chooses, are quoted in CSV as names are when a spreadsheet would run
// them: the tier played and, after the close, the next one.
func TestExportTierNames(t *testing.T) {
	b := &board.Board{ID: "x", Title: "X", Format: board.Format{Type: board.Integer}, Periods: []board.Kind{board.Weekly},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"=cmd()", "@SUM(1)"}, Promote: 1, Relegate: 1}}
	p := board.Period{Kind: board.Weekly}
	entries := []board.Entry{{Rank: 1, Member: "a", Name: "A", Score: 5,
		League: &board.LeagueRow{Tier: 0, Cohort: 1, Rank: 1, Closed: true, Result: &board.LeagueResult{Member: "a", Move: board.Up, Next: 1}}}}
	var csv bytes.Buffer
	if err := Export(&csv, CSV, b, p, board.Segment{}, func(fn func([]board.Entry) error) error { return fn(entries) }); err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(csv.String(), "\n")[1]; got != "1,a,A,5,5,'=cmd(),1,1,up,'@SUM(1)" {
		t.Fatalf("csv row %q", got)
	}
}
