package redisstore

import (
	"errors"
	"testing"
	"time"

	"podium/board"
)

func TestParseSegmentKey(t *testing.T) {
	tests := []struct {
		name, key, z, standing string
		ok                     bool
	}{
		{"standing", "lb:{chess}:w:2026-W47:g:country:NO", "lb:{chess}:w:2026-W47", "lb:{chess}:w:2026-W47:g:country:NO", true},
		{"value with colons", "lb:{chess}:all:g:city:a:b", "lb:{chess}:all", "lb:{chess}:all:g:city:a:b", true},
		{"dense tie groups", "lb:{chess}:d:2026-11-22:gd:country:NO", "lb:{chess}:d:2026-11-22", "lb:{chess}:d:2026-11-22:g:country:NO", true},
		{"tie group counts", "lb:{chess}:d:2026-11-22:gc:country:NO", "lb:{chess}:d:2026-11-22", "lb:{chess}:d:2026-11-22:g:country:NO", true},
		{"standings held", "lb:{chess}:m:2026-11:gs", "lb:{chess}:m:2026-11", "", true},
		{"board id with :g", "lb:{a:g}:all:g:c:x", "lb:{a:g}:all", "lb:{a:g}:all:g:c:x", true},
		{"period", "lb:{chess}:w:2026-W47", "", "", false},
		{"frozen copy", "lb:{chess}:frz:w:2026-W47:g:country:NO", "", "", false},
		{"segment values", "lb:{chess}:seg:country", "", "", false},
		{"other helper", "lb:{chess}:w:2026-W47:gx", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z, g, ok := ParseSegmentKey(tt.key)
			if z != tt.z || g != tt.standing || ok != tt.ok {
				t.Errorf("ParseSegmentKey(%q) = %q, %q, %v; want %q, %q, %v", tt.key, z, g, ok, tt.z, tt.standing, tt.ok)
			}
		})
	}
	p := board.Period{Kind: board.Weekly, Key: "2026-W47"}
	if got := SegmentZSetKey("chess", p, board.Segment{Attr: "country", Value: "NO"}); got != "lb:{chess}:w:2026-W47:g:country:NO" {
		t.Errorf("SegmentZSetKey = %q", got)
	}
}

// TestReadViewsSegment: a segment's page read with the hub's views, in
// one pipeline with a plain page, answers what SegmentPage answers.
func TestReadViewsSegment(t *testing.T) {
	f := realFixture(t)
	def := board.Board{Segments: []string{"country"}, Periods: []board.Kind{board.AllTime}}
	def.ID = testBoardID(t)
	b := f.board(def)
	for i, m := range []string{"ann", "bob", "cy", "dee"} {
		c := map[string]string{"country": []string{"NO", "SE"}[i%2]}
		if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: m, Segments: c, Op: board.Set, Score: float64(10 * (i + 1))}, tester); err != nil {
			t.Fatal(err)
		}
	}
	p := b.Current(board.AllTime, time.Now())
	seg := board.Segment{Attr: "country", Value: "NO"}
	res := f.store.ReadViews(f.ctx, []ViewQuery{{Board: b, Period: p, Limit: 10}, {Board: b, Period: p, Limit: 10, Segment: seg},
		{Board: b, Period: p, Limit: 10, Segment: seg, Member: "ann"}})
	if res[0].Err != nil || res[0].Page.Total != 4 {
		t.Fatalf("plain page: %+v", res[0])
	}
	want, err := f.store.SegmentPage(f.ctx, b, p, seg, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	got := res[1].Page
	if res[1].Err != nil || got.Total != 2 || len(got.Entries) != 2 {
		t.Fatalf("segment view: %+v", res[1])
	}
	for i, e := range got.Entries {
		w := want.Entries[i]
		if e.Member != w.Member || e.Rank != w.Rank || e.GlobalRank != w.GlobalRank || e.Score != w.Score || e.Position != w.Position {
			t.Errorf("row %d: view %+v, SegmentPage %+v", i, e, w)
		}
	}
	if got.Entries[0].Member != "cy" || got.Entries[0].Rank != 1 || got.Entries[0].GlobalRank != 2 {
		t.Errorf("first row %+v: want cy, 1st in NO, 2nd overall", got.Entries[0])
	}
	if !errors.Is(res[2].Err, board.ErrInvalidInput) {
		t.Errorf("around-me in a segment: %v", res[2].Err)
	}
}
