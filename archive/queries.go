package archive

// The archive's reads and writes of rows: what the archiver copies, and
// what exports, past winners and member histories read.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"podium/board"
)

// insertRows is how many rows one INSERT carries (10 values each, well
// under both databases' limits on parameters).
const insertRows = 500

// insert writes entries, the first at position pos.
func (db *DB) insert(ctx context.Context, tx *sql.Tx, boardID, period string, pos int, rows []board.Entry) error {
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), insertRows)]
		rows = rows[len(chunk):]
		var q strings.Builder
		q.WriteString(`INSERT INTO archive_entries (board, period, position, member, name, name_lc, score, rank, fields, segments) VALUES `)
		args := make([]any, 0, 10*len(chunk))
		for i, e := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			args = append(args, boardID, period, pos, e.Member, e.Name, strings.ToLower(e.Name), e.Score, e.Rank, encodeFields(e.Fields), encodeValues(e.Segments))
			pos++
		}
		if _, err := tx.ExecContext(ctx, db.q(q.String()), args...); err != nil {
			return err
		}
	}
	return nil
}

// Count is how many entries the archive holds for a period of a board.
func (db *DB) Count(ctx context.Context, boardID, period string) (int, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM archive_entries WHERE board = ? AND period = ?`), boardID, period).Scan(&n); err != nil {
		return 0, fmt.Errorf("archive: count %s of %q: %w", period, boardID, err)
	}
	return n, nil
}

// Delete drops the archived copy of a period (its race too).
func (db *DB) Delete(ctx context.Context, boardID, period string) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("archive: delete %s of %q: %w", period, boardID, err)
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM archive_entries WHERE board = ? AND period = ?`, `DELETE FROM archive_teams WHERE board = ? AND period = ?`,
		`DELETE FROM archive_segments WHERE board = ? AND period = ?`, `DELETE FROM archive_race WHERE board = ? AND period = ?`,
		`DELETE FROM archive_periods WHERE board = ? AND period = ?`} {
		if _, err := tx.ExecContext(ctx, db.q(q), boardID, period); err != nil {
			return fmt.Errorf("archive: delete %s of %q: %w", period, boardID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("archive: delete %s of %q: %w", period, boardID, err)
	}
	return nil
}

// DropBoard drops every archived period of a board (its standings, team
// standings, league results, races and period records; the audit log
// keeps its entries): a
// deleted board's past must not show on a board made again under its id,
// which may be public where the old one was private. It returns how many
// periods it dropped.
func (db *DB) DropBoard(ctx context.Context, boardID string) (int64, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("archive: drop %q: %w", boardID, err)
	}
	defer tx.Rollback()
	var n int64
	for _, q := range []string{`DELETE FROM archive_entries WHERE board = ?`, `DELETE FROM archive_teams WHERE board = ?`,
		`DELETE FROM archive_segments WHERE board = ?`, `DELETE FROM archive_league_results WHERE board = ?`, `DELETE FROM archive_race WHERE board = ?`,
		`DELETE FROM archive_periods WHERE board = ?`} {
		res, err := tx.ExecContext(ctx, db.q(q), boardID)
		if err != nil {
			return 0, fmt.Errorf("archive: drop %q: %w", boardID, err)
		}
		n, _ = res.RowsAffected() // the last: periods
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("archive: drop %q: %w", boardID, err)
	}
	return n, nil
}

// Archived is what the archive holds of one period.
type Archived struct {
	Board      string
	Period     string
	Members    int
	Pass       int
	ArchivedAt time.Time
}

// Periods lists the archived periods, of one board or of all (boardID ""),
// by board and then newest first.
func (db *DB) Periods(ctx context.Context, boardID string) ([]Archived, error) {
	q := `SELECT board, period, members, pass, archived_at FROM archive_periods`
	var args []any
	if boardID != "" {
		q += ` WHERE board = ?`
		args = append(args, boardID)
	}
	q += ` ORDER BY board, ends_at DESC, period`
	rs, err := db.sql.QueryContext(ctx, db.q(q), args...)
	if err != nil {
		return nil, fmt.Errorf("archive: list periods: %w", err)
	}
	defer rs.Close()
	var out []Archived
	for rs.Next() {
		var x Archived
		var at int64
		if err := rs.Scan(&x.Board, &x.Period, &x.Members, &x.Pass, &at); err != nil {
			return nil, fmt.Errorf("archive: list periods: %w", err)
		}
		x.ArchivedAt = time.UnixMicro(at).UTC()
		out = append(out, x)
	}
	return out, rs.Err()
}

// PeriodTop is a closed period's top three, as archived.
type PeriodTop struct {
	Period  string // "week:2026-W47"
	Members int
	Top     []board.Entry
}

// Winners lists the archived periods of one kind of a board, newest first,
// from offset, with each one's top three (more on ties for third place are
// not shown), and how many there are in all.
func (db *DB) Winners(ctx context.Context, boardID string, kind board.Kind, offset, limit int) ([]PeriodTop, int, error) {
	like := string(kind) + ":%"
	var total int
	if err := db.sql.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM archive_periods WHERE board = ? AND period LIKE ?`), boardID, like).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("archive: winners of %q: %w", boardID, err)
	}
	rs, err := db.sql.QueryContext(ctx, db.q(`SELECT period, members FROM archive_periods WHERE board = ? AND period LIKE ?
		ORDER BY ends_at DESC, period DESC LIMIT ? OFFSET ?`), boardID, like, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("archive: winners of %q: %w", boardID, err)
	}
	var out []PeriodTop
	index := map[string]int{}
	for rs.Next() {
		var t PeriodTop
		if err := rs.Scan(&t.Period, &t.Members); err != nil {
			rs.Close()
			return nil, 0, fmt.Errorf("archive: winners of %q: %w", boardID, err)
		}
		index[t.Period] = len(out)
		out = append(out, t)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, 0, fmt.Errorf("archive: winners of %q: %w", boardID, err)
	}
	if len(out) == 0 {
		return nil, total, nil
	}
	args := []any{boardID}
	marks := make([]string, len(out))
	for i, t := range out {
		marks[i] = "?"
		args = append(args, t.Period)
	}
	rs, err = db.sql.QueryContext(ctx, db.q(`SELECT period, `+entryColumns+` FROM archive_entries
		WHERE board = ? AND period IN (`+strings.Join(marks, ", ")+`) AND position < 3 ORDER BY period, position`), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("archive: winners of %q: %w", boardID, err)
	}
	defer rs.Close()
	for rs.Next() {
		var period string
		e, err := scanEntry(rs, &period)
		if err != nil {
			return nil, 0, fmt.Errorf("archive: winners of %q: %w", boardID, err)
		}
		i := index[period]
		out[i].Top = append(out[i].Top, e)
	}
	return out, total, rs.Err()
}

// Standing is a member's place in one archived period.
type Standing struct {
	Period  string
	Rank    int
	Score   float64
	Members int
}

// History lists a member's standings in the archived periods of one kind,
// the newest limit of them, oldest first.
func (db *DB) History(ctx context.Context, boardID, member string, kind board.Kind, limit int) ([]Standing, error) {
	rs, err := db.sql.QueryContext(ctx, db.q(`SELECT e.period, e.rank, e.score, p.members FROM archive_entries e
		JOIN archive_periods p ON p.board = e.board AND p.period = e.period
		WHERE e.board = ? AND e.member = ? AND e.period LIKE ? ORDER BY p.ends_at DESC LIMIT ?`), boardID, member, string(kind)+":%", limit)
	if err != nil {
		return nil, fmt.Errorf("archive: history of %q on %q: %w", member, boardID, err)
	}
	defer rs.Close()
	var out []Standing
	for rs.Next() {
		var s Standing
		if err := rs.Scan(&s.Period, &s.Rank, &s.Score, &s.Members); err != nil {
			return nil, fmt.Errorf("archive: history of %q on %q: %w", member, boardID, err)
		}
		out = append(out, s)
	}
	slices.Reverse(out)
	return out, rs.Err()
}

// decodeFields reads the extra field values stored as a JSON array.
func decodeFields(s string) []int64 {
	if s == "" || s == "[]" {
		return nil
	}
	var out []int64
	_ = json.Unmarshal([]byte(s), &out)
	return out
}
