package board

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestLeagueNext: the top Promote go up and the bottom Relegate go down,
// ties at a boundary moving together; promotion wins in a cohort too
// small for both; nobody leaves the top or bottom tier; idle members keep
// their tier or drop one.
func TestLeagueNext(t *testing.T) {
	l := &League{Kind: Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, Promote: 2, Relegate: 2}
	// A cohort of six: ranks 1, 2, 2, 4, 5, 5 (competition), and one idle.
	cohort := []Placed{
		{"a", true, 1, 5}, {"b", true, 2, 3}, {"c", true, 2, 3}, {"d", true, 4, 2}, {"e", true, 5, 0}, {"f", true, 5, 0}, {"g", false, 0, 0},
	}
	moves := func(tier int, l *League) string {
		var out []string
		for _, p := range cohort {
			next, m := l.Next(tier, p)
			out = append(out, fmt.Sprintf("%s%+d=%d", p.Member, int(m), next))
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		tier int
		idle bool
		want string
	}{
		{1, false, "a+1=2 b+1=2 c+1=2 d+0=1 e-1=0 f-1=0 g+0=1"},
		{2, false, "a+0=2 b+0=2 c+0=2 d+0=2 e-1=1 f-1=1 g+0=2"},
		{0, true, "a+1=1 b+1=1 c+1=1 d+0=0 e+0=0 f+0=0 g+0=0"},
		{1, true, "a+1=2 b+1=2 c+1=2 d+0=1 e-1=0 f-1=0 g-1=0"},
	} {
		l.IdleDrops = c.idle
		if got := moves(c.tier, l); got != c.want {
			t.Errorf("tier %d, idle drops %v:\n got %s\nwant %s", c.tier, c.idle, got, c.want)
		}
	}
	tiny := &League{Kind: Weekly, Tiers: []string{"A", "B", "C"}, Promote: 2, Relegate: 2}
	if next, m := tiny.Next(1, Placed{"x", true, 2, 0}); next != 2 || m != Up {
		t.Errorf("both up and down: %d %d, want up", next, m)
	}
}

// TestCheckLeague: what a board cannot run is refused, naming the field.
func TestCheckLeague(t *testing.T) {
	b := &Board{Periods: []Kind{Weekly, AllTime}}
	ok := League{Kind: Weekly, Tiers: []string{"Bronze", "Silver"}, Promote: 5, Relegate: 5}
	if err := CheckLeague(b, &ok); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*League)
		want string
	}{
		{func(l *League) { l.Kind = Monthly }, "league.kind"},
		{func(l *League) { l.Kind = AllTime }, "league.kind"},
		{func(l *League) { l.Tiers = []string{"Only"} }, "2 to 20 tiers"},
		{func(l *League) { l.Tiers = []string{"A", "A"} }, "named twice"},
		{func(l *League) { l.Tiers = []string{"A", ""} }, "tier 2"},
		{func(l *League) { l.Tiers = []string{"A", strings.Repeat("b", 33)} }, "longer than 32"},
		{func(l *League) { l.CohortSize = 1 }, "league.cohort_size"},
		{func(l *League) { l.CohortSize = 1001 }, "league.cohort_size"},
		{func(l *League) { l.Promote = 20; l.Relegate = 11 }, "at most the cohort size (30)"},
		{func(l *League) { l.Relegate = -1 }, "league.promote"},
	} {
		l := ok
		l.Tiers = append([]string(nil), ok.Tiers...)
		c.edit(&l)
		if err := CheckLeague(b, &l); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", l, err, c.want)
		}
	}
}

// TestValidateLeague: a definition's league is held to CheckLeague's
// rules, as a problem of the definition naming the league's field.
func TestValidateLeague(t *testing.T) {
	b := Board{ID: "ladder", Title: "Ladder", Periods: []Kind{Weekly}, League: &League{Kind: Monthly, Tiers: []string{"A", "B"}}}
	b.Normalize()
	fe := FieldErrors(b.Validate())
	if len(fe) != 1 || fe[0].Field != "league.kind" || !errors.Is(fe[0], ErrInvalidBoard) {
		t.Fatalf("a month league on a weekly board: %v", fe)
	}
	b.League.Kind = Weekly
	if err := b.Validate(); err != nil {
		t.Fatalf("a weekly league: %v", err)
	}
	c := SpecOf(&b).Board()
	if c.League == b.League || c.League.Size() != DefaultCohortSize || c.League.Tiers[1] != "B" {
		t.Fatalf("through the spec: %+v", c.League)
	}
}
