package board

import (
	"errors"
	"math"
)

// MaxTeamLen is the longest team id, in bytes.
const MaxTeamLen = 64

// MaxTeamMembers is how many members a team page lists.
const MaxTeamMembers = 1000

// CheckTeam refuses team ids that are empty, too long or unprintable: the
// rules of member ids (a team id is shown as it is).
func CheckTeam(team string) error {
	if len(team) > MaxTeamLen {
		return NewFieldError(ErrInvalidInput, "team", "is longer than %d bytes", MaxTeamLen)
	}
	if err := CheckMember(team); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return NewFieldError(ErrInvalidInput, "team", "%s", fe.Message)
		}
		return err
	}
	return nil
}

// TeamBoard is the board as its team standing reads: bare ids, no fields.
func TeamBoard(b *Board) *Board {
	t := *b
	t.TieBreak, t.Fields = ByMember, nil
	return &t
}

// RoundTeams rounds averages to a hundredth of the board's unit: 7.33
// points, not 7.333333333333333 (ranks come from the exact averages); on
// duration boards, to the millisecond the format shows. The page records
// the board's team mode.
func RoundTeams(b *Board, pg Page) Page {
	pg.Teams = b.Teams
	if b.Teams == TeamsAverage {
		for i := range pg.Entries {
			pg.Entries[i].Score = RoundAverage(b, pg.Entries[i].Score)
		}
	}
	return pg
}

// RoundAverage rounds a team average as it is shown: to a hundredth of
// the board's unit, or to the millisecond on duration boards.
func RoundAverage(b *Board, v float64) float64 {
	if b.Format.Type == Duration {
		return math.Round(v)
	}
	return math.Round(v*100) / 100
}
