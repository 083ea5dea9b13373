package archive

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// segmentPage is the page size of the segment reads the tests compare:
// smaller than the segments, so they take several pages.
const segmentPage = 25

// fixtureValues are the countries a segment fixture's members hold.
var fixtureValues = []string{"NO", "SE", "DK", "FI"}

// newSegmentFixture makes a weekly board with two attributes: every
// member but each eleventh holds a country, every third a class; scores
// 0-39 tie often within each.
func newSegmentFixture(t *testing.T, db *DB, style board.RankStyle, order board.Order, withFields bool) *fixture {
	t.Helper()
	def := board.Board{ID: "arcade", Title: "Arcade", Periods: []board.Kind{board.Weekly, board.AllTime}, Order: order,
		RankStyle: style, Fields: fieldsIf(withFields), Segments: []string{"country", "class"}, Retention: board.DefaultRetention}
	return newFixtureWith(t, db, def, func(i int, sub *board.Submission) {
		sub.Segments = map[string]string{}
		if i%11 != 0 {
			sub.Segments["country"] = fixtureValues[i%len(fixtureValues)]
		}
		if i%3 == 0 {
			sub.Segments["class"] = fmt.Sprintf("c%d", i%2)
		}
		if withFields {
			sub.Fields = []int64{int64(i % 3)}
		}
	})
}

// segmentReads is every read of a period's segments: each segment's pages,
// and a few members' standings within each (some outside it).
type segmentReads struct {
	Pages map[string][]board.Page
	Ranks map[string][]board.Standing
}

// fixtureSegments are the segments a segment fixture's reads cover, one
// that nobody holds among them.
func fixtureSegments() []board.Segment {
	var out []board.Segment
	for _, v := range append(fixtureValues, "IS") {
		out = append(out, board.Segment{Attr: "country", Value: v})
	}
	return append(out, board.Segment{Attr: "class", Value: "c0"}, board.Segment{Attr: "class", Value: "c1"})
}

func readSegments(t *testing.T, s *redisstore.Store, b *board.Board, p board.Period) segmentReads {
	t.Helper()
	ctx := t.Context()
	r := segmentReads{Pages: map[string][]board.Page{}, Ranks: map[string][]board.Standing{}}
	members := []string{member(1), member(2), member(3), member(6), member(33), member(40), member(299), "nobody"}
	for _, seg := range fixtureSegments() {
		for off := 0; ; off += segmentPage {
			pg, err := s.SegmentPage(ctx, b, p, seg, off, segmentPage)
			if err != nil {
				t.Fatalf("%s at %d: %v", seg, off, err)
			}
			for i := range pg.Entries {
				pg.Entries[i].Key = "" // the archive's rows are ordered by place
			}
			r.Pages[seg.String()] = append(r.Pages[seg.String()], pg)
			if off+segmentPage >= pg.Total {
				break
			}
		}
		st, err := s.SegmentRanks(ctx, b, p, seg, members)
		if err != nil {
			t.Fatalf("ranks in %s: %v", seg, err)
		}
		r.Ranks[seg.String()] = st
	}
	return r
}

// expireWeek archives the fixture's week finally and waits for its keys
// to leave Redis.
func expireWeek(t *testing.T, f *fixture, w board.Period) {
	t.Helper()
	f.b.Retention = 0
	var err error
	if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
		t.Fatal(err)
	}
	f.a.Linger = time.Millisecond
	if _, err := f.a.Due(f.ctx); err != nil {
		t.Fatal(err)
	}
	waitGone(t, f, w)
}

// TestSegmentsOutliveRedis: a board's closed week, archived and expired
// from Redis, answers the same segment pages and ranks within segments
// from the archive as it did from Redis, ties included, in each rank
// style and order, with and without extra fields, on both databases; a
// member moved after the close is archived under the value it held at
// the copy, as Redis then placed it.
func TestSegmentsOutliveRedis(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		for _, c := range []struct {
			style  board.RankStyle
			order  board.Order
			fields bool
		}{{board.Competition, board.HigherIsBetter, false}, {board.Dense, board.HigherIsBetter, true},
			{board.Ordinal, board.LowerIsBetter, false}, {board.Competition, board.LowerIsBetter, true}, {board.Dense, board.LowerIsBetter, false}} {
			t.Run(fmt.Sprintf("%s-%s-%v", c.style, c.order, c.fields), func(t *testing.T) {
				f := newSegmentFixture(t, db, c.style, c.order, c.fields)
				w := f.week()
				f.clock.Set(w.End.Add(2 * time.Hour))
				if _, _, err := f.store.SetSegment(f.ctx, f.b.ID, member(1), "country", "IS", board.Author{Actor: "test"}); err != nil {
					t.Fatal(err)
				}
				before := readSegments(t, f.store, &f.b, w)
				tied := false
				for _, pg := range before.Pages["country:NO"] {
					for i, e := range pg.Entries {
						tied = tied || (i > 0 && pg.Entries[i-1].Rank == e.Rank)
					}
				}
				if len(before.Pages["country:NO"]) < 2 || tied != (c.style != board.Ordinal) {
					t.Fatalf("country:NO: %d pages, ties %v", len(before.Pages["country:NO"]), tied)
				}
				if is := before.Pages["country:IS"][0]; is.Total != 1 || is.Entries[0].Member != member(1) {
					t.Fatalf("country:IS after the move: %+v", is)
				}
				expireWeek(t, f, w)
				after := readSegments(t, f.store, &f.b, w)
				if !reflect.DeepEqual(before, after) {
					diffSegments(t, before, after)
				}
				// A member's data lists the values each archived row kept.
				rows, _, err := db.MemberRows(f.ctx, f.b.ID, member(3), 10)
				if want := map[string]string{"country": "FI", "class": "c1"}; err != nil || len(rows) != 1 || !reflect.DeepEqual(rows[0].Segments, want) {
					t.Fatalf("member rows of %s: %+v %v", member(3), rows, err)
				}
			})
		}
	})
}

// diffSegments names the first segment read that differs.
func diffSegments(t *testing.T, before, after segmentReads) {
	t.Helper()
	for _, seg := range fixtureSegments() {
		k := seg.String()
		x, y := before.Pages[k], after.Pages[k]
		for i := range min(len(x), len(y)) {
			for j := range min(len(x[i].Entries), len(y[i].Entries)) {
				if !reflect.DeepEqual(x[i].Entries[j], y[i].Entries[j]) {
					t.Fatalf("%s page %d row %d:\nRedis   %+v\narchive %+v", k, i, j, x[i].Entries[j], y[i].Entries[j])
				}
			}
		}
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("%s pages differ:\nRedis   %.800s\narchive %.800s", k, fmt.Sprintf("%+v", x), fmt.Sprintf("%+v", y))
		}
		if !reflect.DeepEqual(before.Ranks[k], after.Ranks[k]) {
			t.Fatalf("%s ranks differ:\nRedis   %+v\narchive %+v", k, before.Ranks[k], after.Ranks[k])
		}
	}
}
