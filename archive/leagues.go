package archive

// Leagues (board/league.go, redisstore/league.go) in the archive. A period
// of a league's kind is copied with its cohort standings: the snapshot
// carries each member's place "<tier>/<cohort>" as the pseudo-attribute
// redisstore.LeagueAttr, and archive_segments keeps the cohorts like any
// segment, ranked within each as Redis ranked them (a cohort holds the
// period's own entries). archive_entries' values leave it out: it is no
// attribute of the board. archive_periods.cohorts counts those rows (NULL:
// copied before the archive kept cohorts).
//
// What the period's close did (promotion and relegation, exactly once, in
// the archiver's pass) is archive_league_results: a row per member of the
// league, placed or idle, with its tier, cohort, rank, move and next tier.

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"podium/board"
	"podium/redisstore"
)

// resultColumns are archive_league_results' columns as scanResults reads
// them.
const resultColumns = `member, tier, cohort, rank, move, next_tier`

// resultOrder lists a period's results by tier, then cohort, then rank,
// the unranked (rank 0, and the idle with no cohort) last, then member.
const resultOrder = ` ORDER BY tier, CASE WHEN cohort = 0 THEN 1 ELSE 0 END, cohort, CASE WHEN rank = 0 THEN 1 ELSE 0 END, rank, member`

// PutLeagueResults records what the close of a period of the board's
// league did to each member of the league, replacing whatever the period
// held, in one transaction: the archiver may run it again after a crash.
func (db *DB) PutLeagueResults(ctx context.Context, boardID, period string, rs []board.LeagueResult) error {
	fail := func(err error) error {
		return fmt.Errorf("archive: league results of %s of %q: %w", period, boardID, err)
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, db.q(`DELETE FROM archive_league_results WHERE board = ? AND period = ?`), boardID, period); err != nil {
		return fail(err)
	}
	for len(rs) > 0 {
		chunk := rs[:min(len(rs), insertRows)]
		rs = rs[len(chunk):]
		var q strings.Builder
		q.WriteString(`INSERT INTO archive_league_results (board, period, ` + resultColumns + `) VALUES `)
		args := make([]any, 0, 8*len(chunk))
		for i, r := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
			args = append(args, boardID, period, r.Member, r.Tier, r.Cohort, r.Rank, int(r.Move), r.Next)
		}
		if _, err := tx.ExecContext(ctx, db.q(q.String()), args...); err != nil {
			return fail(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return nil
}

// LeagueResults lists what the close of a period did, by tier, cohort and
// rank (the unranked last), then member; ok is false when no close
// recorded any.
func (db *DB) LeagueResults(ctx context.Context, boardID, period string) ([]board.LeagueResult, bool, error) {
	rs, err := db.sql.QueryContext(ctx, db.q(`SELECT `+resultColumns+` FROM archive_league_results WHERE board = ? AND period = ?`+resultOrder), boardID, period)
	if err != nil {
		return nil, false, fmt.Errorf("archive: league results of %s of %q: %w", period, boardID, err)
	}
	out, err := scanResults(rs)
	if err != nil {
		return nil, false, fmt.Errorf("archive: league results of %s of %q: %w", period, boardID, err)
	}
	return out, len(out) > 0, nil
}

func scanResults(rs *sql.Rows) ([]board.LeagueResult, error) {
	defer rs.Close()
	var out []board.LeagueResult
	for rs.Next() {
		var r board.LeagueResult
		var move int
		if err := rs.Scan(&r.Member, &r.Tier, &r.Cohort, &r.Rank, &move, &r.Next); err != nil {
			return nil, err
		}
		r.Move = board.Move(move)
		out = append(out, r)
	}
	return out, rs.Err()
}

// LeagueResultsOf is the close's result of each listed member that the
// period's results hold.
func (p past) LeagueResultsOf(ctx context.Context, boardID, period string, members []string) (map[string]board.LeagueResult, error) {
	out := make(map[string]board.LeagueResult, len(members))
	if len(members) == 0 {
		return out, nil
	}
	args, marks := inList(boardID, period, members)
	rs, err := p.db.sql.QueryContext(ctx, p.db.q(`SELECT `+resultColumns+` FROM archive_league_results WHERE board = ? AND period = ? AND member IN (`+marks+`)`), args...)
	if err != nil {
		return nil, fmt.Errorf("archive: league results of %s of %q: %w", period, boardID, err)
	}
	found, err := scanResults(rs)
	if err != nil {
		return nil, fmt.Errorf("archive: league results of %s of %q: %w", period, boardID, err)
	}
	for _, r := range found {
		out[r.Member] = r
	}
	return out, nil
}

// CohortOf is member's place ("<tier>/<cohort>") in a period's archived
// cohort standings and its rank there; ok is false when it held none (no
// place, or no score in the period).
func (p past) CohortOf(ctx context.Context, boardID, period, member string) (place string, rank int, ok bool, err error) {
	err = p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT value, rank FROM archive_segments WHERE board = ? AND period = ? AND attr = ? AND member = ?`),
		boardID, period, redisstore.LeagueAttr, member).Scan(&place, &rank)
	if err == sql.ErrNoRows {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, fmt.Errorf("archive: cohort of a member in %s of %q: %w", period, boardID, err)
	}
	return place, rank, true, nil
}

// Cohorts counts the members placed in each cohort ("<tier>/<cohort>") of
// a period: the close's results count every member placed, the cohort
// standings those with a score; each cohort takes the larger.
func (p past) Cohorts(ctx context.Context, boardID, period string) (map[string]int, error) {
	out := map[string]int{}
	for _, q := range []string{
		`SELECT ` + p.db.cohortLabel() + `, COUNT(*) FROM archive_league_results WHERE board = ? AND period = ? AND cohort > 0 GROUP BY tier, cohort`,
		`SELECT value, COUNT(*) FROM archive_segments WHERE board = ? AND period = ? AND attr = '` + redisstore.LeagueAttr + `' GROUP BY value`,
	} {
		rs, err := p.db.sql.QueryContext(ctx, p.db.q(q), boardID, period)
		if err != nil {
			return nil, fmt.Errorf("archive: cohorts of %s of %q: %w", period, boardID, err)
		}
		for rs.Next() {
			var c string
			var n int
			if err := rs.Scan(&c, &n); err != nil {
				rs.Close()
				return nil, fmt.Errorf("archive: cohorts of %s of %q: %w", period, boardID, err)
			}
			out[c] = max(out[c], n)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return nil, fmt.Errorf("archive: cohorts of %s of %q: %w", period, boardID, err)
		}
	}
	return out, nil
}

// cohortLabel is SQL for a result row's "<tier>/<cohort>".
func (db *DB) cohortLabel() string {
	if db.postgres {
		return `tier::text || '/' || cohort::text`
	}
	return `CAST(tier AS TEXT) || '/' || CAST(cohort AS TEXT)`
}

// LeagueMemberRow is one archived period's league result of a member.
type LeagueMemberRow struct {
	Period string
	board.LeagueResult
}

// MemberLeagueResults lists a member's archived league results, the
// latest periods first (by their end, where the archive holds the period),
// at most max; more says there were more.
func (db *DB) MemberLeagueResults(ctx context.Context, boardID, member string, max int) (rows []LeagueMemberRow, more bool, err error) {
	rs, err := db.sql.QueryContext(ctx, db.q(`SELECT r.period, r.member, r.tier, r.cohort, r.rank, r.move, r.next_tier FROM archive_league_results r
		LEFT JOIN archive_periods p ON p.board = r.board AND p.period = r.period
		WHERE r.board = ? AND r.member = ? ORDER BY COALESCE(p.ends_at, 0) DESC, r.period DESC LIMIT ?`), boardID, member, max+1)
	if err != nil {
		return nil, false, fmt.Errorf("archive: league results of a member of %q: %w", boardID, err)
	}
	defer rs.Close()
	for rs.Next() {
		var r LeagueMemberRow
		var move int
		if err := rs.Scan(&r.Period, &r.Member, &r.Tier, &r.Cohort, &r.Rank, &move, &r.Next); err != nil {
			return nil, false, fmt.Errorf("archive: league results of a member of %q: %w", boardID, err)
		}
		r.Move = board.Move(move)
		rows = append(rows, r)
	}
	if err := rs.Err(); err != nil {
		return nil, false, fmt.Errorf("archive: league results of a member of %q: %w", boardID, err)
	}
	if len(rows) > max {
		return rows[:max], true, nil
	}
	return rows, false, nil
}

// renameLeagueResults gives a member's league results, in every period of
// the board, its pseudonym (an erasure: the results stay, as ranks do).
func (db *DB) renameLeagueResults(ctx context.Context, boardID, member, pseudonym string) (int, error) {
	res, err := db.sql.ExecContext(ctx, db.q(`UPDATE archive_league_results SET member = ? WHERE board = ? AND member = ?`), pseudonym, boardID, member)
	if err != nil {
		return 0, fmt.Errorf("archive: erase in the league results of %q: %w", boardID, err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// parsePlace reads "<tier>/<cohort>".
func parsePlace(s string) (tier, cohort int, ok bool) {
	a, c, found := strings.Cut(s, "/")
	t, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(c)
	return t, n, found && err1 == nil && err2 == nil
}
