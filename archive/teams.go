package archive

// Team standings (redisstore/team.go) in the archive: a team board's period is
// copied with its team standing, from the same snapshot and in the same
// transaction as its members, and read back as board.Past's team reads
// once the period's keys have expired. archive_periods.teams says how many
// teams were copied; NULL (a board without teams, or a copy made before
// the archive kept team standings) says the standing is not held.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"podium/board"
	"podium/redisstore"
)

// writeTeams replaces the archive's copy of a period's team standing with
// the snapshot's, in tx; it returns how many teams it wrote, or NULL for a
// board without teams. It fails, so that tx is rolled back, unless it wrote
// as many teams as the snapshot holds.
func (db *DB) writeTeams(ctx context.Context, tx *sql.Tx, b *board.Board, p board.Period, snap *redisstore.Snapshot) (sql.NullInt64, error) {
	if _, err := tx.ExecContext(ctx, db.q(`DELETE FROM archive_teams WHERE board = ? AND period = ?`), b.ID, p.String()); err != nil {
		return sql.NullInt64{}, fmt.Errorf("archive: clear the teams of %s of %q: %w", p, b.ID, err)
	}
	if b.Teams == board.TeamsOff {
		return sql.NullInt64{}, nil
	}
	pos := 0
	for pos < snap.Teams {
		pg, err := snap.TeamPage(ctx, pos, pageSize)
		if err != nil {
			return sql.NullInt64{}, err
		}
		if len(pg.Entries) == 0 {
			break
		}
		ids := make([]string, len(pg.Entries))
		for i, e := range pg.Entries {
			ids[i] = e.Member
		}
		sizes, err := snap.TeamSizes(ctx, ids)
		if err != nil {
			return sql.NullInt64{}, err
		}
		if err := db.insertTeams(ctx, tx, b.ID, p.String(), pos, pg.Entries, sizes); err != nil {
			return sql.NullInt64{}, fmt.Errorf("archive: copy the teams of %s of %q: %w", p, b.ID, err)
		}
		pos += len(pg.Entries)
	}
	if pos != snap.Teams {
		return sql.NullInt64{}, fmt.Errorf("archive: %s of %q: copied %d teams of the %d in its snapshot (did it expire?); nothing was recorded", p, b.ID, pos, snap.Teams)
	}
	return sql.NullInt64{Int64: int64(pos), Valid: true}, nil
}

// insertTeams writes team rows, the first at position pos; sizes are the
// teams' member counts.
func (db *DB) insertTeams(ctx context.Context, tx *sql.Tx, boardID, period string, pos int, rows []board.Entry, sizes []int) error {
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), insertRows)]
		var q strings.Builder
		q.WriteString(`INSERT INTO archive_teams (board, period, position, team, name, score, rank, members) VALUES `)
		args := make([]any, 0, 8*len(chunk))
		for i, e := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
			args = append(args, boardID, period, pos, e.Member, e.Name, e.Score, e.Rank, sizes[i])
			pos++
		}
		if _, err := tx.ExecContext(ctx, db.q(q.String()), args...); err != nil {
			return err
		}
		rows, sizes = rows[len(chunk):], sizes[len(chunk):]
	}
	return nil
}

func (p past) TeamHeld(ctx context.Context, boardID, period string) (int, board.TeamMode, bool, error) {
	var n sql.NullInt64
	var def string
	err := p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT teams, definition FROM archive_periods WHERE board = ? AND period = ?`), boardID, period).Scan(&n, &def)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", false, nil
	}
	if err != nil {
		return 0, "", false, fmt.Errorf("archive: read the teams of %s of %q: %w", period, boardID, err)
	}
	// The mode the standing was made under is in the definition archived
	// with it: the board's may have changed since.
	var spec board.Spec
	if err := json.Unmarshal([]byte(def), &spec); err != nil {
		return 0, "", false, fmt.Errorf("archive: the definition archived with %s of %q: %w", period, boardID, err)
	}
	return int(n.Int64), spec.Board().Teams, n.Valid, nil
}

func (p past) TeamRows(ctx context.Context, boardID, period string, offset, limit int) ([]board.Entry, error) {
	rs, err := p.db.sql.QueryContext(ctx, p.db.q(`SELECT position, rank, team, name, score FROM archive_teams
		WHERE board = ? AND period = ? AND position >= ? AND position < ? ORDER BY position`), boardID, period, offset, offset+limit)
	if err != nil {
		return nil, fmt.Errorf("archive: read the teams of %s of %q: %w", period, boardID, err)
	}
	defer rs.Close()
	var out []board.Entry
	for rs.Next() {
		var e board.Entry
		if err := rs.Scan(&e.Position, &e.Rank, &e.Member, &e.Name, &e.Score); err != nil {
			return nil, fmt.Errorf("archive: read the teams of %s of %q: %w", period, boardID, err)
		}
		out = append(out, e)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("archive: read the teams of %s of %q: %w", period, boardID, err)
	}
	return out, nil
}

func (p past) TeamSizes(ctx context.Context, boardID, period string, teams []string) (map[string]int, error) {
	out := make(map[string]int, len(teams))
	if len(teams) == 0 {
		return out, nil
	}
	args, marks := inList(boardID, period, teams)
	rs, err := p.db.sql.QueryContext(ctx, p.db.q(`SELECT team, members FROM archive_teams
		WHERE board = ? AND period = ? AND team IN (`+marks+`)`), args...)
	if err != nil {
		return nil, fmt.Errorf("archive: team sizes of %s of %q: %w", period, boardID, err)
	}
	defer rs.Close()
	for rs.Next() {
		var t string
		var n int
		if err := rs.Scan(&t, &n); err != nil {
			return nil, fmt.Errorf("archive: team sizes of %s of %q: %w", period, boardID, err)
		}
		out[t] = n
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("archive: team sizes of %s of %q: %w", period, boardID, err)
	}
	return out, nil
}
