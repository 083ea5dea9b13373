package archive

// Segments (redisstore/segment.go) in the archive. A period is copied with
// its members' values of the board's attributes as they stood at the copy
// (the snapshot copies the values in the same step as the scores; they are
// the members' current values then, not the ones they held while the period
// ran): each row of archive_entries keeps them (its segments column, a JSON
// object), and archive_segments holds every segment's standing, one row per
// member and attribute with its place and rank within the segment. Ranks
// are worked out while the period is copied whole, in board order, by
// board.ListRanker from the members' ranks on the period: the same ranks a
// segment standing gives in Redis (a segment holds the period's own
// entries, so its order and ties are the period's). A filtered read of a
// past period is then a range of archive_segments' primary key joined to
// archive_entries by member, whatever the period's size.
// archive_periods.segments counts the segment rows copied; NULL says the
// copy was made before the archive kept segments.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"podium/board"
	"podium/redisstore"
)

// segmentRow is one member's place in one segment of a period.
type segmentRow struct {
	attr, value, member string
	position, rank      int
}

// segmentWriter ranks a period's members within their segments as the
// copy hands them over in board order, and writes the rows in batches.
type segmentWriter struct {
	db            *DB
	tx            *sql.Tx
	board, period string
	style         board.RankStyle
	rankers       map[[2]string]*board.ListRanker
	rows          []segmentRow
	written       int
	cohorts       int // of written, the league cohorts' (redisstore.LeagueAttr)
}

func newSegmentWriter(db *DB, tx *sql.Tx, b *board.Board, p board.Period) *segmentWriter {
	return &segmentWriter{db: db, tx: tx, board: b.ID, period: p.String(), style: b.RankStyle, rankers: map[[2]string]*board.ListRanker{}}
}

// add places entries, the next of the period in board order, each with
// its values (Entry.Segments), in their segments.
func (w *segmentWriter) add(ctx context.Context, es []board.Entry) error {
	for _, e := range es {
		for _, attr := range slices.Sorted(maps.Keys(e.Segments)) {
			k := [2]string{attr, e.Segments[attr]}
			r := w.rankers[k]
			if r == nil {
				r = &board.ListRanker{Style: w.style}
				w.rankers[k] = r
			}
			pos := r.Count()
			w.rows = append(w.rows, segmentRow{attr: attr, value: k[1], member: e.Member, position: pos, rank: r.Next(e.Rank)})
			if attr == redisstore.LeagueAttr {
				w.cohorts++
			}
		}
		if len(w.rows) >= insertRows {
			if err := w.flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush writes the rows added so far.
func (w *segmentWriter) flush(ctx context.Context) error {
	for len(w.rows) > 0 {
		chunk := w.rows[:min(len(w.rows), insertRows)]
		w.rows = w.rows[len(chunk):]
		var q strings.Builder
		q.WriteString(`INSERT INTO archive_segments (board, period, attr, value, position, member, rank) VALUES `)
		args := make([]any, 0, 7*len(chunk))
		for i, r := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?, ?, ?, ?)")
			args = append(args, w.board, w.period, r.attr, r.value, r.position, r.member, r.rank)
		}
		if _, err := w.tx.ExecContext(ctx, w.db.q(q.String()), args...); err != nil {
			return fmt.Errorf("archive: copy the segments of %s of %q: %w", w.period, w.board, err)
		}
		w.written += len(chunk)
	}
	w.rows = w.rows[:0]
	return nil
}

// withValues gives a page of the snapshot's entries their members' values.
func withValues(ctx context.Context, snap *redisstore.Snapshot, es []board.Entry) error {
	if len(snap.Attrs) == 0 {
		return nil
	}
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.Member
	}
	vals, err := snap.Values(ctx, ids)
	if err != nil {
		return err
	}
	for i := range es {
		es[i].Segments = vals[i]
	}
	return nil
}

// encodeValues writes a member's values as archive_entries keeps them: a
// JSON object, "" for none. Its cohort (redisstore.LeagueAttr) is not one
// of them: archive_segments alone keeps it.
func encodeValues(vs map[string]string) string {
	if _, ok := vs[redisstore.LeagueAttr]; ok {
		vs = maps.Clone(vs)
		delete(vs, redisstore.LeagueAttr)
	}
	if len(vs) == 0 {
		return ""
	}
	j, _ := json.Marshal(vs) // maps of strings always marshal, keys sorted
	return string(j)
}

// decodeValues reads what encodeValues wrote.
func decodeValues(s string) map[string]string {
	if s == "" {
		return nil
	}
	var out map[string]string
	_ = json.Unmarshal([]byte(s), &out)
	return out
}

func (p past) SegmentHeld(ctx context.Context, boardID, period string, seg board.Segment) (int, bool, error) {
	fail := func(err error) (int, bool, error) {
		return 0, false, fmt.Errorf("archive: segment %s of %s of %q: %w", seg, period, boardID, err)
	}
	var kept, cohorts sql.NullInt64
	var def string
	err := p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT segments, cohorts, definition FROM archive_periods WHERE board = ? AND period = ?`), boardID, period).Scan(&kept, &cohorts, &def)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return fail(err)
	}
	if seg.Attr == redisstore.LeagueAttr && !cohorts.Valid {
		// Copied before the archive kept cohorts: held (empty) only if
		// the board ran no league on the period's kind then.
		var spec board.Spec
		if err := json.Unmarshal([]byte(def), &spec); err != nil {
			return fail(err)
		}
		kind, _, _ := cutPeriod(period)
		return 0, spec.League == nil || spec.League.Kind != kind, nil
	}
	if !kept.Valid {
		// Copied before the archive kept segments: held (empty) only if
		// the board had no such attribute then.
		var spec board.Spec
		if err := json.Unmarshal([]byte(def), &spec); err != nil {
			return fail(err)
		}
		return 0, !slices.Contains(spec.Segments, seg.Attr), nil
	}
	var last int
	err = p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT position FROM archive_segments
		WHERE board = ? AND period = ? AND attr = ? AND value = ? ORDER BY position DESC LIMIT 1`), boardID, period, seg.Attr, seg.Value).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, true, nil
	}
	if err != nil {
		return fail(err)
	}
	return last + 1, true, nil // positions are contiguous from 0
}

// segmentColumns are a segment's row joined to its member's entry.
const segmentColumns = `s.position, s.rank, e.member, e.name, e.score, e.fields, e.rank, e.position`

const (
	segmentFrom  = ` FROM archive_segments s JOIN archive_entries e ON e.board = s.board AND e.period = s.period AND e.member = s.member`
	segmentWhere = `
	WHERE s.board = ? AND s.period = ? AND s.attr = ? AND s.value = ?`
	segmentJoin = segmentFrom + segmentWhere
)

func scanSegmentEntries(rs *sql.Rows) ([]board.Entry, error) {
	defer rs.Close()
	var out []board.Entry
	for rs.Next() {
		var e board.Entry
		var fields string
		if err := rs.Scan(&e.Position, &e.Rank, &e.Member, &e.Name, &e.Score, &fields, &e.GlobalRank, &e.GlobalPosition); err != nil {
			return nil, err
		}
		e.Fields = decodeFields(fields)
		out = append(out, e)
	}
	return out, rs.Err()
}

func (p past) SegmentRows(ctx context.Context, boardID, period string, seg board.Segment, offset, limit int) ([]board.Entry, error) {
	rs, err := p.db.sql.QueryContext(ctx, p.db.q(`SELECT `+segmentColumns+segmentJoin+` AND s.position >= ? AND s.position < ? ORDER BY s.position`),
		boardID, period, seg.Attr, seg.Value, offset, offset+limit)
	if err != nil {
		return nil, fmt.Errorf("archive: segment %s of %s of %q: %w", seg, period, boardID, err)
	}
	out, err := scanSegmentEntries(rs)
	if err != nil {
		return nil, fmt.Errorf("archive: segment %s of %s of %q: %w", seg, period, boardID, err)
	}
	return out, nil
}

func (p past) SegmentFind(ctx context.Context, boardID, period string, seg board.Segment, members []string) (map[string]board.Entry, error) {
	out := make(map[string]board.Entry, len(members))
	if len(members) == 0 {
		return out, nil
	}
	args, marks := inList(boardID, period, members)
	args = append(append(args[:2:2], seg.Attr, seg.Value), args[2:]...)
	rs, err := p.db.sql.QueryContext(ctx, p.db.q(`SELECT `+segmentColumns+segmentJoin+` AND s.member IN (`+marks+`)`), args...)
	if err != nil {
		return nil, fmt.Errorf("archive: find in segment %s of %s of %q: %w", seg, period, boardID, err)
	}
	es, err := scanSegmentEntries(rs)
	if err != nil {
		return nil, fmt.Errorf("archive: find in segment %s of %s of %q: %w", seg, period, boardID, err)
	}
	for _, e := range es {
		out[e.Member] = e
	}
	return out, nil
}

// SegmentGroupEnd walks the segment from e (Position its place in the
// segment) to the first member with another score or other fields: as far
// as e's tie group reaches.
func (p past) SegmentGroupEnd(ctx context.Context, boardID, period string, seg board.Segment, e board.Entry) (int, error) {
	var next int
	err := p.db.sql.QueryRowContext(ctx, p.db.q(`SELECT s.position`+segmentJoin+`
		AND s.position > ? AND (e.score <> ? OR e.fields <> ?) ORDER BY s.position LIMIT 1`),
		boardID, period, seg.Attr, seg.Value, e.Position, e.Score, encodeFields(e.Fields)).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) { // the group runs to the end
		var n int
		n, _, err = p.SegmentHeld(ctx, boardID, period, seg)
		next = n
	}
	if err != nil {
		return 0, fmt.Errorf("archive: rank in segment %s of %s of %q: %w", seg, period, boardID, err)
	}
	return next - 1, nil
}

// segmentsKept reports whether the archive's copy of a period of a board
// with attributes holds its segments, and that of a period of a league's
// kind its cohorts: a copy made before the archive kept them must be made
// again before the period's keys go.
func (db *DB) segmentsKept(ctx context.Context, b *board.Board, p board.Period) (bool, error) {
	league := b.League != nil && b.League.Kind == p.Kind
	if len(b.Segments) == 0 && !league {
		return true, nil
	}
	var kept, cohorts sql.NullInt64
	err := db.sql.QueryRowContext(ctx, db.q(`SELECT segments, cohorts FROM archive_periods WHERE board = ? AND period = ?`), b.ID, p.String()).Scan(&kept, &cohorts)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("archive: segments of %s of %q: %w", p, b.ID, err)
	}
	return kept.Valid && (cohorts.Valid || !league), nil
}
