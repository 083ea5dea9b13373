package board

import (
	"errors"
	"testing"
)

// TestParseStanding: a query names a segment of the board or a cohort of
// its league, and nothing else: no cohort on a board without a league, in
// a period of another kind, out of its tiers, or spelt another way.
func TestParseStanding(t *testing.T) {
	league := Board{ID: "lg", Title: "Lg", Periods: []Kind{Weekly, AllTime}, Segments: []string{"country"},
		League: &League{Kind: Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, Promote: 3, Relegate: 3}}
	plain := Board{ID: "pl", Title: "Pl", Periods: []Kind{Weekly}}
	for _, tc := range []struct {
		name string
		b    *Board
		k    Kind
		in   string
		want Segment
		err  error
	}{
		{"none", &league, Weekly, "", Segment{}, nil},
		{"segment", &league, Weekly, "country:NO", Segment{"country", "NO"}, nil},
		{"cohort", &league, Weekly, "L:2/1", Segment{"L", "2/1"}, nil},
		{"lowest tier", &league, Weekly, "L:0/17", Segment{"L", "0/17"}, nil},
		{"tier out of range", &league, Weekly, "L:3/1", Segment{}, ErrNotFound},
		{"cohort 0", &league, Weekly, "L:0/0", Segment{}, ErrInvalidInput},
		{"last cohort", &league, Weekly, "L:0/100000000", Segment{"L", "0/100000000"}, nil},
		{"cohort past the last", &league, Weekly, "L:0/100000001", Segment{}, ErrNotFound},
		{"negative tier", &league, Weekly, "L:-1/1", Segment{}, ErrInvalidInput},
		{"padded", &league, Weekly, "L:01/1", Segment{}, ErrInvalidInput},
		{"plus", &league, Weekly, "L:+1/1", Segment{}, ErrInvalidInput},
		{"no cohort", &league, Weekly, "L:1", Segment{}, ErrInvalidInput},
		{"other kind", &league, AllTime, "L:0/1", Segment{}, ErrInvalidInput},
		{"no league", &plain, Weekly, "L:0/1", Segment{}, ErrNotFound},
		{"lower case l", &league, Weekly, "l:0/1", Segment{}, ErrInvalidInput},
		{"unknown attribute", &league, Weekly, "club:x", Segment{}, ErrInvalidInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseStanding(tc.b, tc.k, tc.in)
			if (tc.err == nil) != (err == nil) || (tc.err != nil && !errors.Is(err, tc.err)) {
				t.Fatalf("ParseStanding(%q) error %v, want %v", tc.in, err, tc.err)
			}
			if got != tc.want {
				t.Fatalf("ParseStanding(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
			if tier, c, ok := got.Cohort(); ok && CohortSegment(tier, c) != got {
				t.Fatalf("Cohort of %+v does not round-trip", got)
			}
		})
	}
}
