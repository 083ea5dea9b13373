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
	"podium/redisstore"
)

// Past is the archive read as board.Past.
func (db *DB) Past() redisstore.Past { return past{db} }

type past struct{ db *DB }

const entryColumns = `position, rank, member, name, score, fields`

// scanEntry reads one row of entryColumns, after any leading columns
// (into before).
func scanEntry(rs *sql.Rows, before ...any) (board.Entry, error) {
	var e board.Entry
	var fields string
	if err := rs.Scan(append(before, &e.Position, &e.Rank, &e.Member, &e.Name, &e.Score, &fields)...); err != nil {
		return board.Entry{}, err
	}
	e.Fields = decodeFields(fields)
	return e, nil
}

func scanEntries(rs *sql.Rows) ([]board.Entry, error) {
	defer rs.Close()
	var out []board.Entry
	for rs.Next() {
		e, err := scanEntry(rs)
		if err != nil {
			return nil, err
		}
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
	args, marks := inList(boardID, period, members)
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

// GroupEnd finds where e's tie group ends. Without extra fields a group is
// a score, and its last position one seek of the score index; with fields,
// the entry before the first later one with another score or other fields,
// walking the position index from e (as far as the group reaches).
func (p past) GroupEnd(ctx context.Context, boardID, period string, e board.Entry) (int, error) {
	if len(e.Fields) == 0 {
		last, err := p.edge(ctx, boardID, period, "MAX", e.Score)
		if err != nil {
			return 0, fmt.Errorf("archive: rank in %s of %q: %w", period, boardID, err)
		}
		return last, nil
	}
	var next int
	err := p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT position FROM archive_entries
		WHERE board = ? AND period = ? AND position > ? AND (score <> ? OR fields <> ?) ORDER BY position LIMIT 1`),
		boardID, period, e.Position, e.Score, encodeFields(e.Fields)).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) { // the group runs to the end
		err = p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT MAX(position) + 1 FROM archive_entries WHERE board = ? AND period = ?`), boardID, period).Scan(&next)
	}
	if err != nil {
		return 0, fmt.Errorf("archive: rank in %s of %q: %w", period, boardID, err)
	}
	return next - 1, nil
}

// Search reads the names from prefix up to the first that no longer
// starts with it, as a range of the (board, period, name_lc) index: name_lc
// is in byte order on both databases, so the range is the prefix's.
func (p past) Search(ctx context.Context, boardID, period, prefix string, limit int) ([]board.Entry, error) {
	collate := ""
	if p.db.postgres {
		collate = ` COLLATE "C"`
	}
	rs, err := p.db.sql.QueryContext(ctx, p.db.q(`SELECT `+entryColumns+` FROM archive_entries
		WHERE board = ? AND period = ? AND name_lc >= ? AND name_lc < ? ORDER BY name_lc, member`+collate+` LIMIT ?`),
		boardID, period, prefix, prefix+"\U0010FFFF", limit)
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

// Range finds the range's ends by index seeks, not by counting: a period is
// stored in board order, so the members whose score lies in [min, max] are
// the positions from the first holding the range's best score to the last
// holding its worst, and those above are the positions before.
func (p past) Range(ctx context.Context, boardID, period string, lo, hi float64, higher bool, offset, limit int) ([]board.Entry, int, int, error) {
	fail := func(err error) ([]board.Entry, int, int, error) {
		return nil, 0, 0, fmt.Errorf("archive: range of %s of %q: %w", period, boardID, err)
	}
	best, worst := "MAX", "MIN"
	if !higher {
		best, worst = worst, best
	}
	bestScore, ok, err := p.scoreIn(ctx, boardID, period, best, lo, hi)
	if err != nil {
		return fail(err)
	}
	if !ok { // nothing in range: those above are the ones better than it
		above := 0
		if (higher && math.IsInf(hi, 1)) || (!higher && math.IsInf(lo, -1)) {
			return nil, 0, 0, nil // nothing can be better than an open end
		}
		from, to := math.Inf(-1), math.Inf(1)
		if higher {
			from = math.Nextafter(hi, math.Inf(1))
		} else {
			to = math.Nextafter(lo, math.Inf(-1))
		}
		if s, ok, err := p.scoreIn(ctx, boardID, period, worst, from, to); err != nil {
			return fail(err)
		} else if ok {
			last, err := p.edge(ctx, boardID, period, "MAX", s)
			if err != nil {
				return fail(err)
			}
			above = last + 1
		}
		return nil, 0, above, nil
	}
	worstScore, _, err := p.scoreIn(ctx, boardID, period, worst, lo, hi)
	if err != nil {
		return fail(err)
	}
	first, err := p.edge(ctx, boardID, period, "MIN", bestScore)
	if err != nil {
		return fail(err)
	}
	last, err := p.edge(ctx, boardID, period, "MAX", worstScore)
	if err != nil {
		return fail(err)
	}
	matched := last - first + 1
	if offset >= matched {
		return nil, matched, first, nil
	}
	out, err := p.Rows(ctx, boardID, period, first+offset, min(limit, matched-offset))
	if err != nil {
		return nil, 0, 0, err
	}
	return out, matched, first, nil
}

// scoreIn is the highest (agg MAX) or lowest (MIN) score in [lo, hi]; ok is
// false when none lies there. Infinite bounds stay out of SQL: the two
// databases do not bind them alike.
func (p past) scoreIn(ctx context.Context, boardID, period, agg string, lo, hi float64) (float64, bool, error) {
	where, args := `board = ? AND period = ?`, []any{boardID, period}
	if !math.IsInf(lo, -1) {
		where, args = where+` AND score >= ?`, append(args, lo)
	}
	if !math.IsInf(hi, 1) {
		where, args = where+` AND score <= ?`, append(args, hi)
	}
	var s sql.NullFloat64
	if err := p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT `+agg+`(score) FROM archive_entries WHERE `+where), args...).Scan(&s); err != nil {
		return 0, false, err
	}
	return s.Float64, s.Valid, nil
}

// edge is the first (MIN) or last (MAX) position holding a score.
func (p past) edge(ctx context.Context, boardID, period, agg string, score float64) (int, error) {
	var pos int
	err := p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT `+agg+`(position) FROM archive_entries WHERE board = ? AND period = ? AND score = ?`), boardID, period, score).Scan(&pos)
	return pos, err
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

// inList is a query's arguments, board and period then ids, and the
// placeholders of the ids for its IN (...).
func inList(boardID, period string, ids []string) ([]any, string) {
	args := make([]any, 0, 2+len(ids))
	args = append(args, boardID, period)
	for _, id := range ids {
		args = append(args, id)
	}
	return args, strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")
}
