package board

import (
	"fmt"
	"strconv"
	"strings"
)

// A league's places in a period, as readers see them. The store keeps
// them (redisstore/league.go); the API and the pages answer with them.

// CohortAttr is the attribute of a cohort's group standing: a cohort is
// read like a segment, Segment{Attr: CohortAttr, Value: "<tier>/<cohort>"}.
// No board attribute can take the name (attributes are lower case), so a
// cohort never reads as a segment of the board, nor the reverse.
const CohortAttr = "L"

// CohortSegment is cohort cohort (1 the first) of tier tier (0 the
// lowest) as a group standing.
func CohortSegment(tier, cohort int) Segment {
	return Segment{Attr: CohortAttr, Value: strconv.Itoa(tier) + "/" + strconv.Itoa(cohort)}
}

// Cohort reads a cohort's group standing back: its tier and cohort, ok
// false for anything else (a segment of the board, a malformed value).
func (s Segment) Cohort() (tier, cohort int, ok bool) {
	if s.Attr != CohortAttr {
		return 0, 0, false
	}
	a, c, found := strings.Cut(s.Value, "/")
	t, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(c)
	if !found || err1 != nil || err2 != nil || t < 0 || n < 1 || CohortSegment(t, n).Value != s.Value {
		return 0, 0, false
	}
	return t, n, true
}

// CheckCohort refuses a cohort board b's league cannot hold in a period
// of kind k: a board without a league (ErrNotFound), a period of another
// kind (a FieldError on "period"), a tier out of range or a cohort below
// 1 (ErrNotFound). Only a cohort that passes is read as a group standing,
// so a reader can never name a standing the board does not offer.
func CheckCohort(b *Board, k Kind, tier, cohort int) error {
	if b.League == nil {
		return fmt.Errorf("board %q runs no league: %w", b.ID, ErrNotFound)
	}
	if k != b.League.Kind {
		return NewFieldError(ErrInvalidInput, "period", "the league of %q runs on %s periods, not %s", b.ID, b.League.Kind, k)
	}
	if tier < 0 || tier >= len(b.League.Tiers) || cohort < 1 || cohort > MaxCohort {
		return fmt.Errorf("board %q has no cohort %d of tier %d: %w", b.ID, cohort, tier, ErrNotFound)
	}
	return nil
}

// ParseStanding reads a group standing named in a query: a segment of the
// board ("country:NO", as ParseSegment) or a cohort of its league
// ("L:<tier>/<cohort>") in a period of kind k, checked by CheckCohort.
func ParseStanding(b *Board, k Kind, s string) (Segment, error) {
	attr, value, _ := strings.Cut(s, ":")
	if attr != CohortAttr {
		return ParseSegment(b, s)
	}
	seg := Segment{Attr: attr, Value: value}
	t, c, ok := seg.Cohort()
	if !ok {
		return Segment{}, NewFieldError(ErrInvalidInput, "segment", "a cohort is L:<tier>/<cohort>, as in L:0/1")
	}
	if err := CheckCohort(b, k, t, c); err != nil {
		return Segment{}, err
	}
	return seg, nil
}

// LeaguePlace is a member's league in a period: its tier and, once its
// first score there placed it, its cohort, the members placed in the
// cohort, and its standing within the cohort (Ranked false: placed, but
// without a score there now).
type LeaguePlace struct {
	Member   string
	Tier     int
	TierName string
	Placed   bool
	Cohort   int
	Size     int
	Standing Standing
}

// LeagueCohort is one cohort of a tier in a period and how many members
// were placed in it.
type LeagueCohort struct {
	Tier    int
	Cohort  int
	Members int
}

// LeagueTier is a tier with its cohorts in a period, first cohort first.
type LeagueTier struct {
	Tier    int
	Name    string
	Cohorts []LeagueCohort
}
