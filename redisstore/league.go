package redisstore

// Leagues (board/league.go). A board with a league keeps each member's
// tier (lb:{b}:league:tier, member -> tier index, 0 the lowest and the
// default) and, in every period of the league's kind, places a member in a
// cohort of its tier on its first score there, filling the tier's cohorts
// in order to the cohort size: z:L (member -> "<tier>/<cohort>") and z:Ln
// (per tier its open cohort, per cohort the members placed). Placing
// happens in the script that writes the score (lua/lib/leagues.lua), so
// concurrent first scores never overfill a cohort. Each cohort's standing
// is a group standing like a segment's (z:g:L:<tier>/<cohort>, listed in
// z:gs), kept by the same scripts, read by group.lua: ranks within the
// cohort follow the board's ties and rank style. A place is for its
// period: removing a member's score keeps it (a new score returns it to
// its cohort), and it counts as a member who did not play.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

func tierKey(id string) string          { return tagOf(id) + ":league:tier" }
func frozenTierKey(id string) string    { return tagOf(id) + ":frz:league:tier" }
func placesKey(zset string) string      { return zset + ":L" }
func cohortCountKey(zset string) string { return zset + ":Ln" }

// cohortGroup is cohort c of tier t as a group standing.
func cohortGroup(t, c int) board.Segment { return board.CohortSegment(t, c) }

// parseCohort reads "<tier>/<cohort>".
func parseCohort(s string) (tier, cohort int, ok bool) {
	a, c, found := strings.Cut(s, "/")
	t, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(c)
	return t, n, found && err1 == nil && err2 == nil
}

// The league's places in a period (board/league_place.go).
type (
	LeaguePlace  = board.LeaguePlace
	LeagueCohort = board.LeagueCohort
	LeagueTier   = board.LeagueTier
)

// leagueOf refuses a board without a league or a period not of its kind.
func leagueOf(b *board.Board, p board.Period) (*board.League, error) {
	if err := board.CheckCohort(b, p.Kind, 0, 1); err != nil {
		return nil, err
	}
	return b.League, nil
}

// tierName is tier t's name, clamped to the league's tiers as placing does.
func tierName(l *board.League, t int) string {
	return l.Tiers[min(max(t, 0), len(l.Tiers)-1)]
}

// tiersSource is the tier hash a read shows: the live one, or, for the
// public of a frozen board, its copy at the freeze (a close during the
// freeze reads the live standings: its moves would give them away).
func (s segmentStore) tiersSource(ctx context.Context, b *board.Board) (string, error) {
	since, err := s.publicFreeze(ctx, b)
	if err != nil || since.IsZero() {
		return tierKey(b.ID), err
	}
	return frozenTierKey(b.ID), nil
}

// TierOf is a member's tier on the board: 0 (the lowest) unless a close
// moved it; as it stood at the freeze for the public of a frozen board.
func (s segmentStore) TierOf(ctx context.Context, b *board.Board, member string) (int, error) {
	key, err := s.tiersSource(ctx, b)
	if err != nil {
		return 0, err
	}
	v, err := s.rdb.HGet(ctx, key, member).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("board: tier of %q on %q: %w", member, b.ID, err)
	}
	if b.League != nil {
		v = min(max(v, 0), len(b.League.Tiers)-1)
	}
	return v, nil
}

// TiersOf is each listed member's tier, as TierOf says, in one round trip.
func (s segmentStore) TiersOf(ctx context.Context, b *board.Board, members []string) ([]int, error) {
	out := make([]int, len(members))
	if len(members) == 0 {
		return out, nil
	}
	key, err := s.tiersSource(ctx, b)
	if err != nil {
		return nil, err
	}
	vs, err := s.rdb.HMGet(ctx, key, members...).Result()
	if err != nil {
		return nil, fmt.Errorf("board: tiers of %d members of %q: %w", len(members), b.ID, err)
	}
	for i, v := range vs {
		if v, ok := v.(string); ok {
			out[i], _ = strconv.Atoi(v)
		}
		if b.League != nil {
			out[i] = min(max(out[i], 0), len(b.League.Tiers)-1)
		}
	}
	return out, nil
}

// LeagueOf is a member's league in period p (of the league's kind): its
// tier, its cohort and its rank there.
func (s segmentStore) LeagueOf(ctx context.Context, b *board.Board, p board.Period, member string) (LeaguePlace, error) {
	l, err := leagueOf(b, p)
	if err != nil {
		return LeaguePlace{}, err
	}
	since, err := s.publicFreeze(ctx, b)
	if err != nil {
		return LeaguePlace{}, err
	}
	z, _ := periodSource(b, p, since)
	out := LeaguePlace{Member: member}
	c, err := s.rdb.HGet(ctx, placesKey(z), member).Result()
	if errors.Is(err, redis.Nil) {
		if past, ok, err := s.pastLeagueOf(ctx, b, l, p, member); err != nil || ok {
			return past, err
		}
		if out.Tier, err = s.TierOf(ctx, b, member); err != nil {
			return LeaguePlace{}, err
		}
		out.TierName = tierName(l, out.Tier)
		out.Standing = board.Standing{Period: p, Member: member}
		return out, nil
	}
	if err != nil {
		return LeaguePlace{}, fmt.Errorf("board: league of %q in %s of %q: %w", member, p, b.ID, err)
	}
	t, n, ok := parseCohort(c)
	if !ok {
		return LeaguePlace{}, fmt.Errorf("board: league of %q in %s of %q: a place %q", member, p, b.ID, c)
	}
	out.Tier, out.TierName, out.Placed, out.Cohort = t, tierName(l, t), true, n
	if out.Size, err = s.rdb.HGet(ctx, cohortCountKey(z), c).Int(); err != nil && !errors.Is(err, redis.Nil) {
		return LeaguePlace{}, fmt.Errorf("board: cohort %s in %s of %q: %w", c, p, b.ID, err)
	}
	st, err := s.groupRanks(ctx, b, p, cohortGroup(t, n), []string{member})
	if err != nil {
		return LeaguePlace{}, err
	}
	out.Standing = st[0]
	return out, nil
}

// CohortPage reads a page of cohort cohort of tier tier in period p: each
// entry's Rank is its rank within the cohort, GlobalRank on the period.
func (s segmentStore) CohortPage(ctx context.Context, b *board.Board, p board.Period, tier, cohort, offset, limit int) (board.Page, error) {
	if err := board.CheckCohort(b, p.Kind, tier, cohort); err != nil {
		return board.Page{}, err
	}
	if err := board.CheckWindow(offset, limit); err != nil {
		return board.Page{}, err
	}
	return s.groupPage(ctx, b, p, cohortGroup(tier, cohort), offset, limit)
}

// TopCohorts is the set of cohorts ("<tier>/<cohort>") of period p that
// hold one of its first n members in board order, or one of also: what a
// reader shown only the top (and its own member) may know of the league's
// cohorts, where the number of cohorts would tell how many play.
func (s segmentStore) TopCohorts(ctx context.Context, b *board.Board, p board.Period, n int, also ...string) (map[string]bool, error) {
	if _, err := leagueOf(b, p); err != nil {
		return nil, err
	}
	members := slices.Clone(also)
	if n > 0 {
		pg, err := s.Top(ctx, b, p, n)
		if err != nil {
			return nil, err
		}
		for _, e := range pg.Entries {
			members = append(members, e.Member)
		}
	}
	out := map[string]bool{}
	if len(members) == 0 {
		return out, nil
	}
	since, err := s.publicFreeze(ctx, b)
	if err != nil {
		return nil, err
	}
	z, _ := periodSource(b, p, since)
	vs, err := s.rdb.HMGet(ctx, placesKey(z), members...).Result()
	if err != nil {
		return nil, fmt.Errorf("board: cohorts of %d members in %s of %q: %w", len(members), p, b.ID, err)
	}
	for _, v := range vs {
		if c, ok := v.(string); ok {
			out[c] = true
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	// An expired period: the archive's places.
	if ok, err := s.pastLeague(ctx, b, p); err != nil || !ok {
		return out, err
	}
	for _, m := range members {
		place, _, ok, err := s.past.CohortOf(ctx, b.ID, p.String(), m)
		if err != nil {
			return nil, err
		}
		if ok {
			out[place] = true
		}
	}
	return out, nil
}

// LeagueTiers lists the league's tiers, lowest first, each with its
// cohorts in period p and the members placed in each.
func (s segmentStore) LeagueTiers(ctx context.Context, b *board.Board, p board.Period) ([]LeagueTier, error) {
	l, err := leagueOf(b, p)
	if err != nil {
		return nil, err
	}
	since, err := s.publicFreeze(ctx, b)
	if err != nil {
		return nil, err
	}
	z, _ := periodSource(b, p, since)
	m, err := s.rdb.HGetAll(ctx, cohortCountKey(z)).Result()
	if err != nil {
		return nil, fmt.Errorf("board: cohorts of %s of %q: %w", p, b.ID, err)
	}
	if len(m) == 0 {
		if past, ok, err := s.pastCohorts(ctx, b, p); err != nil {
			return nil, err
		} else if ok {
			m = past
		}
	}
	out := make([]LeagueTier, len(l.Tiers))
	for t, name := range l.Tiers {
		out[t] = LeagueTier{Tier: t, Name: name}
		open, _ := strconv.Atoi(m[strconv.Itoa(t)])
		for c := 1; c <= open; c++ {
			n, _ := strconv.Atoi(m[cohortGroup(t, c).Value])
			out[t].Cohorts = append(out[t].Cohorts, LeagueCohort{Tier: t, Cohort: c, Members: n})
		}
	}
	return out, nil
}
