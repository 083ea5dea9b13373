package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/audit"
)

// What the archive holds of one member: its rows of archived periods and
// its archived audit entries, for the copy of a person's data and before
// an erasure.

// MemberRow is a member's row of an archived period.
type MemberRow struct {
	Period     string // "week:2026-W47"
	Start, End time.Time
	Name       string
	Score      float64
	Rank       int
	Position   int // 0-based place in board order
	Members    int // how many the period held
	// Segments are its values of the board's attributes when copied.
	Segments map[string]string
}

// MemberRows lists a member's archived rows, the latest periods first, at
// most max; more says there were more.
func (db *DB) MemberRows(ctx context.Context, boardID, member string, max int) (rows []MemberRow, more bool, err error) {
	rs, err := db.sql.QueryContext(ctx, db.q(`SELECT e.period, p.starts_at, p.ends_at, e.name, e.score, e.rank, e.position, p.members, e.segments
		FROM archive_entries e JOIN archive_periods p ON p.board = e.board AND p.period = e.period
		WHERE e.board = ? AND e.member = ? ORDER BY p.ends_at DESC, e.period LIMIT ?`), boardID, member, max+1)
	if err != nil {
		return nil, false, fmt.Errorf("archive: rows of a member of %q: %w", boardID, err)
	}
	defer rs.Close()
	for rs.Next() {
		var r MemberRow
		var start, end int64
		var values string
		if err := rs.Scan(&r.Period, &start, &end, &r.Name, &r.Score, &r.Rank, &r.Position, &r.Members, &values); err != nil {
			return nil, false, fmt.Errorf("archive: rows of a member of %q: %w", boardID, err)
		}
		r.Start, r.End, r.Segments = time.UnixMicro(start).UTC(), time.UnixMicro(end).UTC(), decodeValues(values)
		rows = append(rows, r)
	}
	if err := rs.Err(); err != nil {
		return nil, false, fmt.Errorf("archive: rows of a member of %q: %w", boardID, err)
	}
	if len(rows) > max {
		return rows[:max], true, nil
	}
	return rows, false, nil
}

// AuditHolding finds a board's archived audit entries whose fields hold
// text (audit.ArchivedSearch): candidates, newest first, older than before
// ("" from the newest), at most n.
func (db *DB) AuditHolding(ctx context.Context, boardID, text, before string, n int) ([]redis.XMessage, error) {
	cond, args := holding([]string{text})
	q := `SELECT ms, seq, fields FROM archive_audit WHERE board = ? AND ` + cond
	args = append([]any{boardID}, args...)
	if before != "" {
		ms, seq, err := parseEntryID(before)
		if err != nil {
			return nil, err
		}
		q += ` AND (ms, seq) < (?, ?)`
		args = append(args, ms, seq)
	}
	rs, err := db.sql.QueryContext(ctx, db.q(q+` ORDER BY ms DESC, seq DESC LIMIT ?`), append(args, n)...)
	if err != nil {
		return nil, fmt.Errorf("archive: search the audit of %q: %w", boardID, err)
	}
	rows, err := scanAuditRows(rs)
	if err != nil {
		return nil, fmt.Errorf("archive: search the audit of %q: %w", boardID, err)
	}
	out := make([]redis.XMessage, 0, len(rows))
	for _, r := range rows {
		var f map[string]string
		if err := json.Unmarshal([]byte(r.fields), &f); err != nil {
			return nil, fmt.Errorf("archive: audit entry %d-%d: %w", r.ms, r.seq, err)
		}
		m := redis.XMessage{ID: fmt.Sprintf("%d-%d", r.ms, r.seq), Values: make(map[string]any, len(f))}
		for k, v := range f {
			m.Values[k] = v
		}
		out = append(out, m)
	}
	return out, nil
}

// MemberTraces reads what an erasure of member must know of the archive:
// the display names it had (its rows', and those its archived audit entries
// show it with) and whether the archive holds anything of it: a row, a
// league result, or an audit entry about it (other members' entries whose reasons merely
// name it do not count: an id the board never held is not erased).
func (db *DB) MemberTraces(ctx context.Context, boardID, member string) (names []string, holds bool, err error) {
	rs, err := db.sql.QueryContext(ctx, db.q(`SELECT DISTINCT name FROM archive_entries WHERE board = ? AND member = ?`), boardID, member)
	if err != nil {
		return nil, false, fmt.Errorf("archive: names of a member of %q: %w", boardID, err)
	}
	for rs.Next() {
		var n string
		if err := rs.Scan(&n); err != nil {
			rs.Close()
			return nil, false, fmt.Errorf("archive: names of a member of %q: %w", boardID, err)
		}
		holds = true
		if n != member {
			names = append(names, n)
		}
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, false, err
	}
	if !holds { // a league's results hold members idle in a period, without a row
		var one int
		switch err := db.sql.QueryRowContext(ctx, db.q(`SELECT 1 FROM archive_league_results WHERE board = ? AND member = ? LIMIT 1`), boardID, member).Scan(&one); {
		case err == nil:
			holds = true
		case !errors.Is(err, sql.ErrNoRows):
			return nil, false, fmt.Errorf("archive: league results of a member of %q: %w", boardID, err)
		}
	}
	for before := ""; ; {
		msgs, err := db.AuditHolding(ctx, boardID, member, before, auditPage)
		if err != nil {
			return nil, false, err
		}
		for _, m := range msgs {
			f := make(map[string]string, len(m.Values))
			for k, v := range m.Values {
				f[k], _ = v.(string)
			}
			names = append(names, audit.NamesIn(f, member)...)
			if !holds && audit.About(f, member) {
				holds = true
			}
		}
		if len(msgs) < auditPage {
			break
		}
		before = msgs[len(msgs)-1].ID
	}
	slices.Sort(names)
	return slices.Compact(names), holds, nil
}
