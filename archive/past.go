package archive

// The archive as the board package's Past: how pages, the API and the live
// hub read a closed period once its keys have expired from Redis. Each read
// is one or two indexed queries; positions are contiguous from 0, so a page
// is a range of the (board, period, position) index.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"podium/board"
)

// Past is the archive read as board.Past.
func (db *DB) Past() board.Past { return past{db} }

type past struct{ db *DB }

const entryColumns = `position, rank, member, name, score, fields`

func scanEntries(rs *sql.Rows) ([]board.Entry, error) {
	defer rs.Close()
	var out []board.Entry
	for rs.Next() {
		var e board.Entry
		var fields string
		if err := rs.Scan(&e.Position, &e.Rank, &e.Member, &e.Name, &e.Score, &fields); err != nil {
			return nil, err
		}
		e.Fields = decodeFields(fields)
		out = append(out, e)
	}
	return out, rs.Err()
}

func (p past) Held(ctx context.Context, boardID, period string) (int, bool, error) {
	var n int
	err := p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT members FROM archive_periods WHERE board = ? AND period = ?`), boardID, period).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("archive: read %s of %q: %w", period, boardID, err)
	}
	return n, true, nil
}

func (p past) Rows(ctx context.Context, boardID, period string, offset, limit int) ([]board.Entry, error) {
	rs, err := p.db.sql.QueryContext(ctx, p.db.q(`SELECT `+entryColumns+` FROM archive_entries
		WHERE board = ? AND period = ? AND position >= ? AND position < ? ORDER BY position`), boardID, period, offset, offset+limit)
	if err != nil {
		return nil, fmt.Errorf("archive: read %s of %q: %w", period, boardID, err)
	}
	out, err := scanEntries(rs)
	if err != nil {
		return nil, fmt.Errorf("archive: read %s of %q: %w", period, boardID, err)
	}
	return out, nil
}

func (p past) Find(ctx context.Context, boardID, period string, members []string) (map[string]board.Entry, error) {
	out := make(map[string]board.Entry, len(members))
	if len(members) == 0 {
		return out, nil
	}
	args := []any{boardID, period}
	for _, m := range members {
		args = append(args, m)
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(members)), ", ")
	rs, err := p.db.sql.QueryContext(ctx, p.db.q(`SELECT `+entryColumns+` FROM archive_entries
		WHERE board = ? AND period = ? AND member IN (`+marks+`)`), args...)
	if err != nil {
		return nil, fmt.Errorf("archive: find in %s of %q: %w", period, boardID, err)
	}
	es, err := scanEntries(rs)
	if err != nil {
		return nil, fmt.Errorf("archive: find in %s of %q: %w", period, boardID, err)
	}
	for _, e := range es {
		out[e.Member] = e
	}
	return out, nil
}

// Worse finds where e's tie group ends: the first later entry with another
// score or other fields. Entries are in board order, so the walk along the
// position index stops at the group's end, however big the period.
func (p past) Worse(ctx context.Context, boardID, period string, e board.Entry) (int, error) {
	var next int
	err := p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT position FROM archive_entries
		WHERE board = ? AND period = ? AND position > ? AND (score <> ? OR fields <> ?) ORDER BY position LIMIT 1`),
		boardID, period, e.Position, e.Score, encodeFields(e.Fields)).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil // the group runs to the end
	}
	if err != nil {
		return 0, fmt.Errorf("archive: rank in %s of %q: %w", period, boardID, err)
	}
	total, _, err := p.Held(ctx, boardID, period)
	if err != nil {
		return 0, err
	}
	return total - next, nil
}

func (p past) Search(ctx context.Context, boardID, period, prefix string, limit int) ([]board.Entry, error) {
	like := strings.NewReplacer(`!`, `!!`, `%`, `!%`, `_`, `!_`).Replace(prefix) + "%"
	// Names in byte order, as Redis' name index holds them: PostgreSQL's
	// default collation may follow a language's rules.
	collate := ""
	if p.db.postgres {
		collate = ` COLLATE "C"`
	}
	rs, err := p.db.sql.QueryContext(ctx, p.db.q(`SELECT `+entryColumns+` FROM archive_entries
		WHERE board = ? AND period = ? AND name_lc LIKE ? ESCAPE '!' ORDER BY name_lc`+collate+`, member`+collate+` LIMIT ?`), boardID, period, like, limit)
	if err != nil {
		return nil, fmt.Errorf("archive: search %s of %q: %w", period, boardID, err)
	}
	out, err := scanEntries(rs)
	if err != nil {
		return nil, fmt.Errorf("archive: search %s of %q: %w", period, boardID, err)
	}
	slices.SortFunc(out, func(a, b board.Entry) int { return a.Position - b.Position })
	return out, nil
}

func (p past) Range(ctx context.Context, boardID, period string, min, max float64, higher bool, offset, limit int) ([]board.Entry, int, int, error) {
	where, args := `board = ? AND period = ?`, []any{boardID, period}
	if !math.IsInf(min, -1) { // infinities stay out of SQL: neither database binds them alike
		where, args = where+` AND score >= ?`, append(args, min)
	}
	if !math.IsInf(max, 1) {
		where, args = where+` AND score <= ?`, append(args, max)
	}
	fail := func(err error) ([]board.Entry, int, int, error) {
		return nil, 0, 0, fmt.Errorf("archive: range of %s of %q: %w", period, boardID, err)
	}
	var n, above int
	if err := p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT COUNT(*) FROM archive_entries WHERE `+where), args...).Scan(&n); err != nil {
		return fail(err)
	}
	better, bound := `score > ?`, max
	if !higher {
		better, bound = `score < ?`, min
	}
	if !math.IsInf(bound, 0) {
		if err := p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT COUNT(*) FROM archive_entries WHERE board = ? AND period = ? AND `+better), boardID, period, bound).Scan(&above); err != nil {
			return fail(err)
		}
	}
	rs, err := p.db.sql.QueryContext(ctx, p.db.q(`SELECT `+entryColumns+` FROM archive_entries WHERE `+where+` ORDER BY position LIMIT ? OFFSET ?`), append(args, limit, offset)...)
	if err != nil {
		return fail(err)
	}
	out, err := scanEntries(rs)
	if err != nil {
		return fail(err)
	}
	return out, n, above, nil
}

// encodeFields writes extra field values as they are stored: a JSON array.
func encodeFields(vals []int64) string {
	if len(vals) == 0 {
		return "[]"
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, v)
	}
	b.WriteByte(']')
	return b.String()
}
