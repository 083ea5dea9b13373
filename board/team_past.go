package board

// Team standings of closed periods whose keys have expired: the archive
// holds them beside the periods' members (Past.TeamHeld, TeamRows,
// TeamSizes), with the ranks, ties and member counts they closed with. A
// period the archive holds without its team standing (archived before the
// archive kept them, or while the board kept none) answers
// ErrTeamsNotArchived rather than an empty standing.

import (
	"context"
	"fmt"
	"math"
)

// pastTeamPage answers a page of an expired period's team standing from
// the archive; ok is false when Redis is where p lives (or lived: an empty
// closed period).
func (s *Store) pastTeamPage(ctx context.Context, b *Board, p Period, offset, limit int) (Page, bool, error) {
	n, ok, err := s.pastTeams(ctx, b, p)
	if err != nil || !ok {
		return Page{}, ok, err
	}
	pg := Page{Period: p, Total: n, Offset: offset, Matched: n}
	if offset < n {
		if pg.Entries, err = s.past.TeamRows(ctx, b.ID, p.String(), offset, limit); err != nil {
			return Page{}, false, err
		}
	}
	for i := range pg.Entries {
		pg.Entries[i].Score = roundPastTeam(b, pg.Entries[i].Score)
	}
	return pg, true, nil
}

// pastTeamSizes is TeamSizes of an expired period, from the archive.
func (s *Store) pastTeamSizes(ctx context.Context, b *Board, p Period, teams []string) ([]int, bool, error) {
	n, ok, err := s.pastTeams(ctx, b, p)
	if err != nil || !ok {
		return nil, ok, err
	}
	out := make([]int, len(teams))
	if n == 0 {
		return out, true, nil
	}
	got, err := s.past.TeamSizes(ctx, b.ID, p.String(), teams)
	if err != nil {
		return nil, false, err
	}
	for i, t := range teams {
		out[i] = got[t]
	}
	return out, true, nil
}

// pastTeams is how many teams the archive holds of an expired period's
// team standing; ok is false when p is not read from the archive. An
// expired period the archive holds without its team standing is
// ErrTeamsNotArchived, unless it has no members (so no teams) at all.
func (s *Store) pastTeams(ctx context.Context, b *Board, p Period) (int, bool, error) {
	members, past, err := s.pastTotal(ctx, b, p)
	if err != nil || !past {
		return 0, false, err
	}
	n, held, err := s.past.TeamHeld(ctx, b.ID, p.String())
	if err != nil {
		return 0, false, err
	}
	if !held {
		if members == 0 {
			return 0, true, nil
		}
		return 0, false, fmt.Errorf("board: %s of %q is archived without its team standing "+
			"(archived before the archive kept team standings, or while the board kept none): %w", p, b.ID, ErrTeamsNotArchived)
	}
	return n, true, nil
}

// roundPastTeam rounds an archived team score as TeamPage rounds averages.
// The board's team mode may have changed since the period was archived, so
// the score says what it was: sums and bests are whole units (which
// rounding would leave alone, but for the last bits of the largest), an
// average need not be.
func roundPastTeam(b *Board, v float64) float64 {
	if v == math.Trunc(v) {
		return v
	}
	return roundAverage(b, v)
}
