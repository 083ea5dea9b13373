package archive

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/rows"
)

// TestSegmentExportsAgree: exports of a board with attributes carry a
// column per attribute; an export of one segment holds its members with
// their ranks within it, as its pages rank them; and each export, whole or
// of a segment, CSV or JSON, is the same file from Redis and, once the
// period's keys are gone, from the archive, in each rank style.
func TestSegmentExportsAgree(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		for _, style := range []board.RankStyle{board.Competition, board.Dense, board.Ordinal} {
			t.Run(string(style), func(t *testing.T) {
				f := newSegmentFixture(t, db, style, board.HigherIsBetter, style == board.Dense)
				w := f.week()
				f.clock.Set(w.End.Add(2 * time.Hour))
				r := NewReader(f.store, db, 1)
				export := func(format string, seg board.Segment) string {
					var buf bytes.Buffer
					err := rows.Export(&buf, format, &f.b, w, seg, func(fn func([]board.Entry) error) error { return r.EachIn(f.ctx, &f.b, w, seg, fn) })
					if err != nil {
						t.Fatal(err)
					}
					return buf.String()
				}
				segs := append(fixtureSegments(), board.Segment{})
				before := map[string]string{}
				for _, seg := range segs {
					for _, format := range []string{rows.CSV, rows.JSON} {
						before[seg.String()+format] = export(format, seg)
					}
				}
				whole := before[rows.CSV]
				if head, _, _ := strings.Cut(whole, "\n"); !strings.HasSuffix(head, ",country,class") {
					t.Fatalf("the header: %s", head)
				}
				if !strings.Contains(whole, ",SE,c1\n") || !strings.Contains(whole, ",,c0\n") {
					t.Fatalf("values missing from the export:\n%.500s", whole)
				}
				no := board.Segment{Attr: "country", Value: "NO"}
				sameRanks(t, f, w, no, before[no.String()+rows.CSV])
				expireWeek(t, f, w)
				for _, seg := range segs {
					for _, format := range []string{rows.CSV, rows.JSON} {
						if got, want := export(format, seg), before[seg.String()+format]; got != want {
							t.Fatalf("%s %q from the archive differs from Redis':\n%.400s\n---\n%.400s", format, seg, got, want)
						}
					}
				}
			})
		}
	})
}

// sameRanks checks that a segment's CSV export lists the members, ranks
// and global ranks its pages read from Redis.
func sameRanks(t *testing.T, f *fixture, p board.Period, seg board.Segment, file string) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(file)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	pg, err := f.store.SegmentPage(f.ctx, &f.b, p, seg, 0, board.MaxPageSize)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs)-1 != pg.Total || pg.Total == 0 {
		t.Fatalf("%s: %d rows exported, %d in the segment", seg, len(recs)-1, pg.Total)
	}
	for i, e := range pg.Entries {
		rec := recs[i+1]
		if rec[0] != strconv.Itoa(e.Rank) || rec[1] != e.Member || rec[len(rec)-1] != strconv.Itoa(e.GlobalRank) {
			t.Fatalf("%s row %d: exported %v, the page %+v", seg, i, rec, e)
		}
	}
}
