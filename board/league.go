package board

import (
	"errors"
	"fmt"
	"slices"
)

// Leagues. A board may run leagues on one calendar period kind (a week or
// a month, typically): named tiers, lowest first (Bronze, Silver, Gold),
// and in each tier cohorts of at most CohortSize members who rank among
// themselves in that period. When the period closes, the top Promote of
// each cohort move up a tier and the bottom Relegate move down for the
// next period; members who did not play keep their tier, or drop one
// (IdleDrops). This file holds the rules; where members and cohorts are
// kept is the store's business.
//
// Ties at a boundary move together: every member whose rank in the cohort
// is at most Promote goes up (two tied third places with Promote 3 both
// go up), and every member with fewer than Relegate members strictly below
// it goes down. A member who would do both (a tiny cohort) goes up. No one
// goes above the top tier or below the bottom one.
type League struct {
	Kind       Kind     `json:"kind"`
	Tiers      []string `json:"tiers"`
	CohortSize int      `json:"cohort_size,omitempty"`
	Promote    int      `json:"promote"`
	Relegate   int      `json:"relegate"`
	IdleDrops  bool     `json:"idle_drops,omitempty"`
}

// League limits.
const (
	DefaultCohortSize = 30
	MaxCohortSize     = 1000
	// MaxCohort is the highest cohort number a reader may name (pages, the
	// API, the live socket): far past any real league, short of overflow.
	MaxCohort  = 100_000_000
	MaxTiers   = 20
	MaxTierLen = 32
)

// Size is the league's cohort size, the default when none is set.
func (l *League) Size() int {
	if l.CohortSize == 0 {
		return DefaultCohortSize
	}
	return l.CohortSize
}

// Clone is a copy of l that shares nothing with it (nil for nil).
func (l *League) Clone() *League {
	if l == nil {
		return nil
	}
	c := *l
	c.Tiers = slices.Clone(l.Tiers)
	return &c
}

// checkLeague holds a definition's league to CheckLeague's rules.
func (b *Board) checkLeague(p *problems) {
	if b.League == nil {
		return
	}
	var fe *FieldError
	if err := CheckLeague(b, b.League); errors.As(err, &fe) {
		p.add(fe.Field, "%s", fe.Message)
	}
}

// CheckLeague refuses a league board b cannot run: a kind that is not a
// calendar kind the board keeps, fewer than two tiers or more than
// MaxTiers, tier names empty, unprintable, too long or repeated, a cohort
// size out of range, or moves that do not fit in a cohort.
func CheckLeague(b *Board, l *League) error {
	if !l.Kind.Calendar() || l.Kind == Custom || !slices.Contains(b.Periods, l.Kind) {
		return NewFieldError(ErrInvalidInput, "league.kind", "must be a calendar period the board keeps (day, week, month or year), not %q", l.Kind)
	}
	if len(l.Tiers) < 2 || len(l.Tiers) > MaxTiers {
		return NewFieldError(ErrInvalidInput, "league.tiers", "name 2 to %d tiers, lowest first", MaxTiers)
	}
	for i, t := range l.Tiers {
		if len(t) > MaxTierLen {
			return NewFieldError(ErrInvalidInput, "league.tiers", "tier %d is longer than %d bytes", i+1, MaxTierLen)
		}
		if err := CheckMember(t); err != nil {
			return NewFieldError(ErrInvalidInput, "league.tiers", "tier %d: %s", i+1, fieldMessage(err))
		}
		if slices.Index(l.Tiers, t) != i {
			return NewFieldError(ErrInvalidInput, "league.tiers", "tier %q is named twice", t)
		}
	}
	size := l.Size()
	if size < 2 || size > MaxCohortSize {
		return NewFieldError(ErrInvalidInput, "league.cohort_size", "must be from 2 to %d", MaxCohortSize)
	}
	if l.Promote < 0 || l.Relegate < 0 || l.Promote+l.Relegate > size {
		return NewFieldError(ErrInvalidInput, "league.promote", "promote and relegate must be 0 or more, and together at most the cohort size (%d)", size)
	}
	return nil
}

// Placed is a member of a cohort at a period's close: its rank in the
// cohort (by the board's rank style) and how many members of the cohort
// rank strictly below it; Played is false for a member of the cohort with
// no score in the period.
type Placed struct {
	Member string
	Played bool
	Rank   int
	Worse  int
}

// Move is what the close does to a member: up one tier, down one, or
// stay (0).
type Move int

// The moves.
const (
	Stay Move = 0
	Up   Move = 1
	Down Move = -1
)

// Next is the tier (0: the lowest) a member of a cohort of tier holds in
// the next period, and the move that took it there.
func (l *League) Next(tier int, p Placed) (int, Move) {
	top := len(l.Tiers) - 1
	var m Move
	switch {
	case !p.Played:
		if l.IdleDrops {
			m = Down
		}
	case p.Rank <= l.Promote:
		m = Up
	case p.Worse < l.Relegate:
		m = Down
	}
	if (m == Up && tier >= top) || (m == Down && tier <= 0) {
		return tier, Stay
	}
	return tier + int(m), m
}

// LeagueResult is what a period's close did to one member of the league:
// the tier it played the period in, its cohort (0: a member of the league
// who did not play and was not placed) and its rank there (0: no score in
// the period), the move and the tier it holds in the next period.
type LeagueResult struct {
	Member string `json:"member"`
	Tier   int    `json:"tier"`
	Cohort int    `json:"cohort,omitempty"`
	Rank   int    `json:"rank,omitempty"`
	Move   Move   `json:"move"`
	Next   int    `json:"next"`
}

// LeagueRow is an entry's league in a period of the league's kind, as an
// export shows it: the tier it played the period in, its cohort (0: not
// placed) and its rank there (by the board's rank style), and, once the
// period's close has run (Closed), what the close did to it (Result: nil
// when it recorded nothing for the member).
type LeagueRow struct {
	Tier   int
	Cohort int
	Rank   int
	Closed bool
	Result *LeagueResult
}

// TierName is tier t's name, clamped to the league's tiers (a tier a
// definition since took away reads as the top one, as placing does).
func (l *League) TierName(t int) string {
	return l.Tiers[min(max(t, 0), len(l.Tiers)-1)]
}

// Played says whether the member scored in the period.
func (r LeagueResult) Played() bool { return r.Rank > 0 }

// String names a move as the API and webhooks write it.
func (m Move) String() string {
	switch m {
	case Up:
		return "up"
	case Down:
		return "down"
	}
	return "stay"
}

// MarshalText writes a move as String does.
func (m Move) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (m *Move) UnmarshalText(b []byte) error {
	switch string(b) {
	case "up":
		*m = Up
	case "down":
		*m = Down
	case "stay":
		*m = Stay
	default:
		return fmt.Errorf("league: no move %q (up, down or stay)", b)
	}
	return nil
}
