package archive

// A member's erasure in the archive (package memberdata runs it after the
// Redis step): its rows of archived periods (entries, places in segments
// and cohorts, league results, race points) take the pseudonym, always
// (closed periods are final results: others keep the ranks they won), and
// the archived audit entries are redacted as Redis' are (audit.Redact).
// Both are idempotent: running the erasure again finishes what a failure
// left.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/audit"
	"podium/board"
	"podium/redisstore"
)

// Erased says what an erasure changed in the archive.
type Erased struct {
	Periods int // archived periods the member's row was renamed in
	Audit   int // archived audit entries redacted
	Leagues int // league results renamed (a member idle in a period has one without a row)
	Race    int // points of archived races renamed
}

// EraseMember renames the member in every archived period of the board
// and redacts the board's archived audit entries up to r.Cut. It waits for
// the passes under way to end, and a period's rows change under its
// archiving lock, so that no pass copying it from a snapshot taken before
// the Redis step writes the old rows back; the board's stream is copied
// first (it is redacted by then), so that a copy in flight from before
// finds its rows already there.
func (a *Archiver) EraseMember(ctx context.Context, b *board.Board, r redisstore.Redaction) (Erased, error) {
	var out Erased
	if err := a.awaitPasses(ctx, b); err != nil {
		return out, err
	}
	periods, err := a.DB.memberPeriods(ctx, b.ID, r.Member)
	if err != nil {
		return out, err
	}
	for _, label := range periods {
		if err := a.renameIn(ctx, b, label, r); err != nil {
			return out, err
		}
		out.Periods++
	}
	// Its league results, idle periods' too, after the passes under way
	// (awaitPasses): a close that runs later reads the member's new id.
	if out.Leagues, err = a.DB.renameLeagueResults(ctx, b.ID, r.Member, r.Pseudonym); err != nil {
		return out, err
	}
	// Its race points, periods where it kept none too (it may have left one).
	if out.Race, err = a.DB.renameRace(ctx, b.ID, r.Member, r.Pseudonym); err != nil {
		return out, err
	}
	if _, err := a.copyBoardAudit(ctx, b.ID); err != nil {
		return out, fmt.Errorf("archive: audit of %q: %w", b.ID, err)
	}
	out.Audit, err = a.DB.redactAudit(ctx, r)
	return out, err
}

// awaitPasses waits for the passes copying the board's closed periods
// that began before the erasure's Redis step: one may be about to write the
// member's old rows of a period the archive does not hold yet, which
// memberPeriods would not list. A pass that begins later copies the
// member's new id.
func (a *Archiver) awaitPasses(ctx context.Context, b *board.Board) error {
	ps, err := a.Store.StoredPeriods(ctx, b)
	if err != nil {
		return err
	}
	now := a.Store.Now()
	for _, p := range ps {
		if !p.Ended(now) {
			continue // nothing copies a period still open
		}
		l, err := a.waitLock(ctx, b, p)
		if err != nil {
			return err
		}
		l.release()
	}
	return nil
}

// memberPeriods lists the archived periods that hold member.
func (db *DB) memberPeriods(ctx context.Context, boardID, member string) ([]string, error) {
	rs, err := db.sql.QueryContext(ctx, db.q(`SELECT period FROM archive_entries WHERE board = ? AND member = ? ORDER BY period`), boardID, member)
	if err != nil {
		return nil, fmt.Errorf("archive: periods of a member of %q: %w", boardID, err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var p string
		if err := rs.Scan(&p); err != nil {
			return nil, fmt.Errorf("archive: periods of a member of %q: %w", boardID, err)
		}
		out = append(out, p)
	}
	return out, rs.Err()
}

// lockWait bounds how long an erasure waits for a pass holding a period's
// lock: a live pass renews it, so a long wait means a long copy.
const lockWait = time.Minute

// renameIn renames the member in one archived period, under its lock.
func (a *Archiver) renameIn(ctx context.Context, b *board.Board, label string, r redisstore.Redaction) error {
	k, key, ok := cutPeriod(label)
	if !ok {
		return fmt.Errorf("archive: %q of %q is not a period", label, b.ID)
	}
	p, err := b.PeriodOf(k, key)
	if err != nil {
		return fmt.Errorf("archive: %q of %q: %w", label, b.ID, err)
	}
	l, err := a.waitLock(ctx, b, p)
	if err != nil {
		return err
	}
	defer l.release()
	tx, err := a.DB.sql.BeginTx(l.ctx, nil)
	if err != nil {
		return fmt.Errorf("archive: erase in %s of %q: %w", label, b.ID, err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(l.ctx, a.DB.q(`UPDATE archive_entries SET member = ?, name = ?, name_lc = ? WHERE board = ? AND period = ? AND member = ?`),
		r.Pseudonym, r.Pseudonym, strings.ToLower(r.Pseudonym), b.ID, label, r.Member)
	if err == nil { // its places in segments follow, values kept, as in Redis (erase.lua)
		_, err = tx.ExecContext(l.ctx, a.DB.q(`UPDATE archive_segments SET member = ? WHERE board = ? AND period = ? AND member = ?`),
			r.Pseudonym, b.ID, label, r.Member)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return fmt.Errorf("archive: erase in %s of %q: %w", label, b.ID, err)
	}
	return nil
}

// waitLock takes a period's archiving lock, waiting for a pass that holds
// it, at most lockWait.
func (a *Archiver) waitLock(ctx context.Context, b *board.Board, p board.Period) (*lease, error) {
	deadline := time.Now().Add(lockWait)
	for {
		l, err := a.lock(ctx, b, p)
		if err != nil || l != nil {
			return l, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("archive: %s of %q is being archived: %w", p, b.ID, board.ErrBusy)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// copyBoardAudit copies a board's audit stream past its mark, as CopyAudit
// does for every board.
func (a *Archiver) copyBoardAudit(ctx context.Context, id string) (int, error) {
	mark, err := a.rdb().HGet(ctx, redisstore.AuditRows(id), auditMark).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, err
	}
	return a.copyAudit(ctx, id, mark)
}

// holding is the SQL condition of archived audit entries whose fields may
// hold one of texts (as the JSON of the fields writes it), and its
// arguments: candidates, which audit.Redact or the caller decides on.
func holding(texts []string) (string, []any) {
	var conds []string
	var args []any
	for _, t := range texts {
		if t == "" {
			continue
		}
		j, _ := json.Marshal(t)
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(string(j[1 : len(j)-1]))
		conds = append(conds, `fields LIKE ? ESCAPE '\'`)
		args = append(args, "%"+esc+"%")
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}

// auditPage is how many archived entries an erasure reads and rewrites in
// one transaction.
const auditPage = 256

// redactAudit redacts the board's archived entries up to r.Cut, a page at
// a time, and says how many changed.
func (db *DB) redactAudit(ctx context.Context, r redisstore.Redaction) (int, error) {
	cutMS, cutSeq, err := parseEntryID(r.Cut)
	if err != nil {
		return 0, err
	}
	cond, args := holding(append([]string{r.Member}, r.Names...))
	var afterMS, afterSeq int64 = -1, 0
	changed := 0
	for {
		q := `SELECT ms, seq, fields FROM archive_audit WHERE board = ? AND (ms, seq) > (?, ?) AND (ms, seq) <= (?, ?) AND ` + cond + ` ORDER BY ms, seq LIMIT ?`
		rs, err := db.sql.QueryContext(ctx, db.q(q), append(append([]any{r.Board, afterMS, afterSeq, cutMS, cutSeq}, args...), auditPage)...)
		if err != nil {
			return changed, fmt.Errorf("archive: audit of %q: %w", r.Board, err)
		}
		rows, err := scanAuditRows(rs)
		if err != nil {
			return changed, fmt.Errorf("archive: audit of %q: %w", r.Board, err)
		}
		n, err := db.rewriteAudit(ctx, r, rows)
		changed += n
		if err != nil || len(rows) < auditPage {
			return changed, err
		}
		afterMS, afterSeq = rows[len(rows)-1].ms, rows[len(rows)-1].seq
	}
}

type auditRow struct {
	ms, seq int64
	fields  string
}

func scanAuditRows(rs *sql.Rows) ([]auditRow, error) {
	defer rs.Close()
	var out []auditRow
	for rs.Next() {
		var r auditRow
		if err := rs.Scan(&r.ms, &r.seq, &r.fields); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rs.Err()
}

// rewriteAudit redacts a page of archived entries in one transaction.
func (db *DB) rewriteAudit(ctx context.Context, r redisstore.Redaction, rows []auditRow) (int, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n := 0
	for _, row := range rows {
		var f map[string]string
		if err := json.Unmarshal([]byte(row.fields), &f); err != nil {
			return 0, fmt.Errorf("archive: audit entry %d-%d: %w", row.ms, row.seq, err)
		}
		if !audit.Redact(f, r) {
			continue
		}
		js, err := json.Marshal(f)
		if err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, db.q(`UPDATE archive_audit SET fields = ? WHERE board = ? AND ms = ? AND seq = ?`), string(js), r.Board, row.ms, row.seq); err != nil {
			return 0, fmt.Errorf("archive: audit entry %d-%d: %w", row.ms, row.seq, err)
		}
		n++
	}
	return n, tx.Commit()
}
