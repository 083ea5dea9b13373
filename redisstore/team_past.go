package redisstore

// Team standings of closed periods whose keys have expired: the archive
// holds them beside the periods' members (Past.TeamHeld, TeamRows,
// TeamSizes), with the ranks, ties and member counts they closed with. A
// period the archive holds without its team standing (archived before the
// archive kept them, or while the board kept none) answers
// ErrTeamsNotArchived rather than an empty standing.

import (
	"context"
	"fmt"

	"podium/board"
)

// pastTeamPage answers a page of an expired period's team standing from
// the archive; ok is false when Redis is where p lives (or lived: an empty
// closed period).
func (s teamStore) pastTeamPage(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, bool, error) {
	n, mode, ok, err := s.pastTeams(ctx, b, p)
	if err != nil || !ok {
		return board.Page{}, ok, err
	}
	pg := board.Page{Period: p, Total: n, Offset: offset, Matched: n, Teams: mode}
	if offset < n {
		if pg.Entries, err = s.past.TeamRows(ctx, b.ID, p.String(), offset, limit); err != nil {
			return board.Page{}, false, err
		}
	}
	if mode == board.TeamsAverage {
		for i := range pg.Entries {
			pg.Entries[i].Score = board.RoundAverage(b, pg.Entries[i].Score)
		}
	}
	return pg, true, nil
}

// pastTeamSizes is TeamSizes of an expired period, from the archive.
func (s teamStore) pastTeamSizes(ctx context.Context, b *board.Board, p board.Period, teams []string) ([]int, bool, error) {
	n, _, ok, err := s.pastTeams(ctx, b, p)
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
// team standing, and the team mode it closed under; ok is false when p is
// not read from the archive. An expired period the archive holds without
// its team standing is ErrTeamsNotArchived, unless it has no members (so
// no teams) at all.
func (s teamStore) pastTeams(ctx context.Context, b *board.Board, p board.Period) (int, board.TeamMode, bool, error) {
	members, past, err := s.pastTotal(ctx, b, p)
	if err != nil || !past {
		return 0, "", false, err
	}
	n, mode, held, err := s.past.TeamHeld(ctx, b.ID, p.String())
	if err != nil {
		return 0, "", false, err
	}
	if !held {
		if members == 0 {
			return 0, b.Teams, true, nil
		}
		return 0, "", false, fmt.Errorf("board: %s of %q is archived without its team standing "+
			"(archived before the archive kept team standings, or while the board kept none): %w", p, b.ID, board.ErrTeamsNotArchived)
	}
	return n, mode, true, nil
}
