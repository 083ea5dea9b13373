package redisstore

// Team boards. A board with Teams set keeps, beside each period's member
// standings, a team standing: each team's score is the sum, the average or
// the best of its members' scores in that period, kept by the same scripts
// that change the members' scores (submit, FCALL podium_submit, remove,
// reset, the rolling windows' roll, the size cap), in the same atomic step.
//
// A member belongs to at most one team (lb:{b}:team, member -> team; the
// members of each team in lb:{b}:team:m:<team>). Joining a team, per
// submission ("team" beside the score) or on its own (SetTeam), moves the
// member's scores in every period the board holds in Redis from its old
// team's standing to the new one's, atomically: team standings always
// follow the current teams, past periods held in Redis included.
//
// Per period zset z: z:t (team -> score), z:tn (team -> members counted),
// z:ts (team -> sum, for averages) and, on dense boards, z:t:d and z:t:c
// (the teams' tie groups). A team standing reads like a period with the
// member tie-break: ties keep Redis' order of team ids, ranks follow the
// board's rank style. Averages are not whole numbers of the unit: they are
// shown rounded to a hundredth of it.
//
// A closed period's team standing goes to the archive with its members, in
// the same copy (archive/), and is read there once the period's keys have
// expired (team_past.go); until then, a team move or a change of team mode
// that changes it has the period copied again.
//
// Limits: changing the board's team mode rebuilds every held period's
// standing, O(members) each. The archive keeps no team membership: a
// team's page of an archived period lists the team's current members.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

func teamKey(id string) string              { return tagOf(id) + ":team" }
func teamMembersKey(id, team string) string { return tagOf(id) + ":team:m:" + team }
func teamsKey(id string) string             { return tagOf(id) + ":teams" }
func teamZSetKey(zset string) string        { return zset + ":t" }
func teamCountKey(zset string) string       { return zset + ":tn" }

// teamKeys are every team standing key of period zset z (lua/lib/base.lua's team_keys).
func teamKeys(z string) []string {
	return []string{z + ":t", z + ":tn", z + ":ts", z + ":t:d", z + ":t:c"}
}

// teamNamesKey is never written: team rows are named by their ids.
func teamNamesKey(id string) string { return tagOf(id) + ":team:names" }

// TeamOf is the team a member belongs to ("" none).
func (s teamStore) TeamOf(ctx context.Context, b *board.Board, member string) (string, error) {
	t, err := s.rdb.HGet(ctx, teamKey(b.ID), member).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("board: team of %q on %q: %w", member, b.ID, err)
	}
	return t, nil
}

// Teams lists the board's teams, in id order.
func (s teamStore) Teams(ctx context.Context, b *board.Board) ([]string, error) {
	ts, err := s.rdb.SMembers(ctx, teamsKey(b.ID)).Result()
	if err != nil {
		return nil, fmt.Errorf("board: teams of %q: %w", b.ID, err)
	}
	slices.Sort(ts)
	return ts, nil
}

// SetTeam puts a member in a team, or takes it out of its team with team
// "", moving its scores in every period held in Redis, and records it in
// the audit log in the same step. It reports the team the member left and
// whether anything changed.
func (s teamStore) SetTeam(ctx context.Context, boardID, member, team string, by board.Author) (left string, changed bool, err error) {
	if err := by.Check(); err != nil {
		return "", false, err
	}
	if err := board.CheckMember(member); err != nil {
		return "", false, err
	}
	if team != "" {
		if err := board.CheckTeam(team); err != nil {
			return "", false, err
		}
	}
	for attempt := 0; ; attempt++ {
		read := s.Board
		if attempt > 0 {
			read = s.readBoard // fresh: the cached definition was stale
		}
		b, err := read(ctx, boardID)
		if err != nil {
			return "", false, err
		}
		if b.Teams == board.TeamsOff {
			return "", false, board.NewFieldError(board.ErrInvalidInput, "team", "board %q has no teams; enable them on the board first", b.ID)
		}
		c := scripts.setteam.call(5, 10).key("def", defKey(b.ID)).key("periods", periodsKey(b.ID))
		auditKeys(c, b.ID, by).encoding(&b).arg("member", member).arg("team", team).arg("actor", by.Actor).arg("reason", by.Reason).
			arg("audit_keep", s.auditKeep).arg("version", strconv.FormatInt(b.Version, 10))
		reply, err := c.run(ctx, s.rdb).Result()
		if err != nil {
			return "", false, fmt.Errorf("board: team of %q on %q: %w", member, boardID, err)
		}
		st, rest, err := status(reply)
		if err != nil {
			return "", false, err
		}
		switch st {
		case "nf":
			return "", false, fmt.Errorf("board %q: %w", boardID, board.ErrNotFound)
		case "off":
			return "", false, board.NewFieldError(board.ErrInvalidInput, "team", "board %q has no teams; enable them on the board first", boardID)
		case "stale":
			if attempt < 2 {
				continue
			}
			return "", false, fmt.Errorf("board %q: %w", boardID, board.ErrDefinitionChanged)
		}
		left, _ = rest[0].(string)
		moved, _ := rest[1].(string)
		if moved == "1" {
			s.wrote(ctx, s.teamKeysOf(ctx, &b)...)
		}
		return left, moved == "1", nil
	}
}

// teamKeysOf names the team standings of the periods held, for the embedded
// store's notifications after a move.
func (s teamStore) teamKeysOf(ctx context.Context, b *board.Board) []string {
	zs, _ := s.rdb.SMembers(ctx, periodsKey(b.ID)).Result()
	for i, z := range zs {
		zs[i] = teamZSetKey(z)
	}
	return zs
}

// TeamPage reads a page of a period's team standing: each entry's Member is
// a team id, Score its score, Rank its rank in the board's rank style. A
// closed period whose keys expired is read from the archive (pastTeamPage).
func (s teamStore) TeamPage(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error) {
	if err := board.CheckWindow(offset, limit); err != nil {
		return board.Page{}, err
	}
	if b.Teams == board.TeamsOff {
		return board.Page{}, fmt.Errorf("board %q has no teams: %w", b.ID, board.ErrNotFound)
	}
	pz, frozen, err := s.source(ctx, b, p) // a frozen board's public sees its copy
	if err != nil {
		return board.Page{}, err
	}
	pg, err := s.teamView(ctx, b, p, teamZSetKey(pz), offset, limit)
	if err != nil {
		return board.Page{}, err
	}
	if pg.Total == 0 && frozen.IsZero() {
		if past, ok, err := s.pastTeamPage(ctx, b, p, offset, limit); err != nil || ok {
			return past, err
		}
	}
	return board.RoundTeams(b, pg), nil
}

// teamView reads a page of the team standing in zset z (a period's, its
// frozen copy's or a snapshot's) as the team board reads it, the scores as
// Redis keeps them.
func (s teamStore) teamView(ctx context.Context, b *board.Board, p board.Period, z string, offset, limit int) (board.Page, error) {
	t := board.TeamBoard(b)
	reply, err := viewCall(t, z, teamNamesKey(b.ID), "page", offset, limit).run(ctx, s.rdb).Result()
	if err != nil {
		return board.Page{}, fmt.Errorf("board: teams of %s of %q: %w", p, b.ID, err)
	}
	pg, _, err := decodeTeamView(b, p, reply)
	return pg, err
}

// decodeTeamView is decodeView of a page of b's team standing. Its rows
// have no order key, as the archive's: no walk goes by team (board.Mark).
func decodeTeamView(b *board.Board, p board.Period, reply any) (board.Page, int, error) {
	pg, pos, err := decodeView(board.TeamBoard(b), p, reply)
	for i := range pg.Entries {
		pg.Entries[i].Key = ""
	}
	return pg, pos, err
}

// TeamSizes counts the members each listed team has in a period.
func (s teamStore) TeamSizes(ctx context.Context, b *board.Board, p board.Period, teams []string) ([]int, error) {
	if len(teams) == 0 {
		return make([]int, 0), nil
	}
	pz, frozen, err := s.source(ctx, b, p)
	if err != nil {
		return nil, err
	}
	out, err := s.teamSizes(ctx, b, p, teamCountKey(pz), teams)
	if err != nil || !frozen.IsZero() || slices.ContainsFunc(out, func(n int) bool { return n > 0 }) {
		return out, err
	}
	if past, ok, err := s.pastTeamSizes(ctx, b, p, teams); err != nil || ok {
		return past, err
	}
	return out, nil
}

// teamSizes reads the members each listed team counts in hash key (a
// period's z:tn, or a copy's).
func (s teamStore) teamSizes(ctx context.Context, b *board.Board, p board.Period, key string, teams []string) ([]int, error) {
	out := make([]int, len(teams))
	if len(teams) == 0 {
		return out, nil
	}
	got, err := s.rdb.HMGet(ctx, key, teams...).Result()
	if err != nil {
		return nil, fmt.Errorf("board: team sizes of %s of %q: %w", p, b.ID, err)
	}
	for i, v := range got {
		out[i] = toInt(v)
	}
	return out, nil
}

// TeamMembers lists the members of a team with their standings in a
// period, best first, unranked ones last by id: the best MaxTeamMembers of
// a team's first maxTeamRead members by id. The members are the team's
// current ones (a frozen board's public: those at the freeze); a period
// read from the archive gives them the ranks it archived.
func (s teamStore) TeamMembers(ctx context.Context, b *board.Board, p board.Period, team string) ([]board.Standing, error) {
	set := teamMembersKey(b.ID, team)
	if _, since, err := s.source(ctx, b, p); err != nil {
		return nil, err
	} else if !since.IsZero() {
		set = tagOf(b.ID) + ":frz:team:m:" + team // the public of a freeze: its members then
	}
	ids, err := s.rdb.SMembers(ctx, set).Result()
	if err != nil {
		return nil, fmt.Errorf("board: members of team %q on %q: %w", team, b.ID, err)
	}
	slices.Sort(ids)
	var out []board.Standing
	for start := 0; start < len(ids) && start < maxTeamRead; start += board.MaxRankMembers {
		part := ids[start:min(len(ids), start+board.MaxRankMembers, maxTeamRead)]
		sts, err := s.Ranks(ctx, b, p, part)
		if err != nil {
			return nil, err
		}
		out = append(out, sts...)
	}
	slices.SortStableFunc(out, func(x, y board.Standing) int {
		switch {
		case x.Ranked != y.Ranked:
			if x.Ranked {
				return -1
			}
			return 1
		case x.Ranked:
			return x.Position - y.Position
		}
		return 0
	})
	return out[:min(len(out), board.MaxTeamMembers)], nil
}

// maxTeamRead bounds the members a team page ranks.
const maxTeamRead = 20_000

// rebuildTeams builds every held period's team standing again for b's team
// mode (none deletes them): when a board's team mode changes.
func (s teamStore) rebuildTeams(ctx context.Context, b *board.Board) error {
	zs, err := s.rdb.SMembers(ctx, periodsKey(b.ID)).Result()
	if err != nil {
		return fmt.Errorf("board: team standings of %q: %w", b.ID, err)
	}
	for _, z := range zs {
		st, _, err := statusOf(scripts.teambuild.call(2, 5).key("def", defKey(b.ID)).key("zset", z).encoding(b).arg("teams", string(b.Teams)).run(ctx, s.rdb).Result())
		if err != nil {
			return fmt.Errorf("board: team standing of %s on %q: %w", z, b.ID, err)
		}
		if st == "stale" {
			return nil // a newer definition with another mode or style rebuilds them itself
		}
		s.wrote(ctx, teamZSetKey(z))
	}
	return nil
}

func statusOf(reply any, err error) (string, []any, error) {
	if err != nil {
		return "", nil, err
	}
	return status(reply)
}
