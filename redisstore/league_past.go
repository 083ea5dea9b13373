package redisstore

// Leagues of closed periods whose keys have expired: the archive holds each
// cohort's standing as a segment of LeagueAttr (a member's place
// "<tier>/<cohort>" is copied with its values), so CohortPage reads it as
// segment pages do (groupPage), and the close's results say what became
// of every member of the league, idle ones too. A period of the league's
// kind archived before the archive kept cohorts is ErrGone.

import (
	"context"
	"fmt"
	"strconv"

	"podium/board"
)

// LeaguePast is what the past (Past) holds of a league's periods.
type LeaguePast interface {
	// CohortOf is member's place ("<tier>/<cohort>") in a period's cohort
	// standings and its rank there; ok is false when it held none there
	// (no place, or no score in the period).
	CohortOf(ctx context.Context, boardID, period, member string) (place string, rank int, ok bool, err error)
	// Cohorts counts the members placed in each cohort ("<tier>/<cohort>")
	// of a period.
	Cohorts(ctx context.Context, boardID, period string) (map[string]int, error)
	// LeagueResultsOf is the close's result of each listed member that
	// the period's results hold (none before the close ran).
	LeagueResultsOf(ctx context.Context, boardID, period string, members []string) (map[string]board.LeagueResult, error)
}

// pastLeague says whether the past answers for league period p (closed and
// expired), and refuses one archived without its cohorts.
func (s segmentStore) pastLeague(ctx context.Context, b *board.Board, p board.Period) (bool, error) {
	_, ok, err := s.pastSegment(ctx, b, p, board.Segment{Attr: LeagueAttr})
	return ok, err
}

// pastLeagueOf is LeagueOf of an expired period, from the archive: its
// place in the cohort standings, else the close's result (a member placed
// whose score was removed, or one idle: the tier it played in); ok false
// when Redis is where p lives.
func (s segmentStore) pastLeagueOf(ctx context.Context, b *board.Board, l *board.League, p board.Period, member string) (LeaguePlace, bool, error) {
	ok, err := s.pastLeague(ctx, b, p)
	if err != nil || !ok {
		return LeaguePlace{}, ok, err
	}
	out := LeaguePlace{Member: member, Standing: board.Standing{Period: p, Member: member}}
	place, _, placed, err := s.past.CohortOf(ctx, b.ID, p.String(), member)
	if err != nil {
		return LeaguePlace{}, false, err
	}
	rs, err := s.past.LeagueResultsOf(ctx, b.ID, p.String(), []string{member})
	if err != nil {
		return LeaguePlace{}, false, err
	}
	r, closed := rs[member]
	switch {
	case placed:
		t, c, ok := parseCohort(place)
		if !ok {
			return LeaguePlace{}, false, fmt.Errorf("board: league of %q in %s of %q: an archived place %q", member, p, b.ID, place)
		}
		out.Tier, out.Cohort, out.Placed = t, c, true
	case closed:
		out.Tier, out.Cohort, out.Placed = r.Tier, r.Cohort, r.Cohort > 0
	default:
		if out.Tier, err = s.TierOf(ctx, b, member); err != nil {
			return LeaguePlace{}, false, err
		}
	}
	out.TierName = tierName(l, out.Tier)
	if !out.Placed {
		return out, true, nil
	}
	counts, err := s.past.Cohorts(ctx, b.ID, p.String())
	if err != nil {
		return LeaguePlace{}, false, err
	}
	g := cohortGroup(out.Tier, out.Cohort)
	out.Size = counts[g.Value]
	st, _, err := s.pastSegmentRanks(ctx, b, p, g, []string{member})
	if err != nil {
		return LeaguePlace{}, false, err
	}
	out.Standing = st[0]
	return out, true, nil
}

// pastCohorts is what z:Ln held of an expired period, from the archive:
// per tier its last cohort, per cohort the members placed; ok false when
// Redis is where p lives.
func (s segmentStore) pastCohorts(ctx context.Context, b *board.Board, p board.Period) (map[string]string, bool, error) {
	ok, err := s.pastLeague(ctx, b, p)
	if err != nil || !ok {
		return nil, ok, err
	}
	counts, err := s.past.Cohorts(ctx, b.ID, p.String())
	if err != nil {
		return nil, false, err
	}
	out := make(map[string]string, 2*len(counts))
	last := map[int]int{}
	for g, n := range counts {
		t, c, ok := parseCohort(g)
		if !ok {
			continue
		}
		out[g] = strconv.Itoa(n)
		last[t] = max(last[t], c)
	}
	for t, c := range last {
		out[strconv.Itoa(t)] = strconv.Itoa(c)
	}
	return out, true, nil
}
