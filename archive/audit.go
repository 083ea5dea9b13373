package archive

// The audit log in the archive: CopyAudit copies every board's audit stream
// (board.AuditStream) to SQL, and the archive answers audit.Log's listings
// where Redis has trimmed a stream (audit.Archived).
//
// The copy goes up to a mark kept in the board's hash slot, field 'archived'
// of board.AuditRows: the id of the newest entry the archive holds. Once a
// board has one, the script that trims its streams (audit_trim in
// redisstore/lua/lib/audit.lua) drops only entries the archive holds, up to a hard
// bound, and counts the rows it dropped uncopied in field 'unarchived'.
// Copies are idempotent (an entry is its board and id: a second insert is
// ignored) and the mark is only ever raised, after the rows are committed,
// so replicas may copy at once and a crash between the two steps costs a
// repeat, never a row.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"podium/audit"
	"podium/redisstore"
)

// Fields of board.AuditRows that the archive and audit_trim share.
const (
	auditMark       = "archived"   // the id of the newest entry the archive holds
	auditUnarchived = "unarchived" // rows dropped from the board's stream before they were copied
)

// auditChunk is how many entries each read of a stream takes, and each
// transaction writes: a batch entry may hold a thousand rows.
const auditChunk = 256

// raiseMark sets a board's mark to ARGV[1] unless it is already there or
// past it (a replica that copied further), and returns the mark.
var raiseMark = redis.NewScript(`
local function id(s)
  local ms, seq = string.match(s or '', '^(%d+)%-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local cur = redis.call('HGET', KEYS[1], ARGV[2])
local ms, seq = id(ARGV[1])
local cms, cseq = id(cur)
if cms and (cms > ms or (cms == ms and cseq >= seq)) then return cur end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[1])
return ARGV[1]`)

// takeCount reads and clears a counter in one step, so of two replicas
// only one reports it.
var takeCount = redis.NewScript(`
local n = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') or 0
if n ~= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return n`)

// CopyAudit copies the entries every board's audit stream gained since its
// mark, and returns how many entries it added to the archive. A board's
// first copy sets its mark, which makes Redis keep what the archive lacks
// from then on. Rows Redis had to drop before they were copied (the
// archiver was down or behind past the hard bound) are logged as a warning,
// once per board and run. Every replica may run it at any time.
func (a *Archiver) CopyAudit(ctx context.Context) (int, error) {
	rdb := a.rdb()
	ids, err := rdb.SMembers(ctx, redisstore.AuditedKey).Result()
	if err != nil {
		return 0, fmt.Errorf("archive: audit: list boards: %w", err)
	}
	slices.Sort(ids)
	// Two pipelines for every board: the marks, then whether an entry
	// follows each (most boards have nothing new most of the time; the
	// copy itself holds one board's chunk in memory at a time).
	states := make([]*redis.SliceCmd, len(ids))
	if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			states[i] = p.HMGet(ctx, redisstore.AuditRows(id), auditMark, auditUnarchived)
		}
		return nil
	}); err != nil {
		return 0, fmt.Errorf("archive: audit: read marks: %w", err)
	}
	marks := make([]string, len(ids))
	news := make([]*redis.XMessageSliceCmd, len(ids))
	if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			marks[i], _ = states[i].Val()[0].(string)
			news[i] = p.XRangeN(ctx, redisstore.AuditStream(id), pastMark(marks[i]), "+", 1)
		}
		return nil
	}); err != nil {
		return 0, fmt.Errorf("archive: audit: read streams: %w", err)
	}
	copied := 0
	var errs []error
	for i, id := range ids {
		if lost, _ := states[i].Val()[1].(string); lost != "" && lost != "0" {
			n, err := takeCount.Run(ctx, rdb, []string{redisstore.AuditRows(id)}, auditUnarchived).Int()
			if err != nil {
				errs = append(errs, fmt.Errorf("archive: audit of %q: read the rows lost: %w", id, err))
			} else if n > 0 {
				a.Log.Warn("archive: audit rows were dropped from Redis before they were archived; is the archiver running often enough?", "board", id, "rows", n)
			}
		}
		var n int
		var err error
		switch {
		case len(news[i].Val()) > 0:
			n, err = a.copyAudit(ctx, id, marks[i])
		case marks[i] == "":
			// An empty log gets a mark too: from now on an archiver
			// runs, so Redis keeps what the archive lacks.
			err = raiseMark.Run(ctx, rdb, []string{redisstore.AuditRows(id)}, "0-0", auditMark).Err()
		}
		copied += n
		if err != nil {
			errs = append(errs, fmt.Errorf("archive: audit of %q: %w", id, err))
		}
	}
	return copied, errors.Join(errs...)
}

// pastMark is the XRANGE start of the entries past a mark.
func pastMark(mark string) string {
	if mark == "" || mark == "0-0" {
		return "-"
	}
	return "(" + mark
}

// copyAudit copies one board's entries past mark, a chunk at a time,
// raising the mark after each chunk is committed.
func (a *Archiver) copyAudit(ctx context.Context, id, mark string) (int, error) {
	rows := redisstore.AuditRows(id)
	copied := 0
	for {
		msgs, err := a.rdb().XRangeN(ctx, redisstore.AuditStream(id), pastMark(mark), "+", auditChunk).Result()
		if err != nil {
			return copied, fmt.Errorf("read: %w", err)
		}
		if len(msgs) == 0 {
			return copied, nil
		}
		n, err := a.DB.insertAudit(ctx, id, msgs)
		if err != nil {
			return copied, err
		}
		copied += n
		// Go on from the mark as it now stands: past ours if another
		// replica copied further meanwhile.
		if mark, err = raiseMark.Run(ctx, a.rdb(), []string{rows}, msgs[len(msgs)-1].ID, auditMark).Text(); err != nil {
			return copied, fmt.Errorf("raise the mark: %w", err)
		}
		if len(msgs) < auditChunk {
			return copied, nil
		}
	}
}

// insertAudit writes a board's stream entries in one transaction, skipping
// those the archive holds, and returns how many it added.
func (db *DB) insertAudit(ctx context.Context, boardID string, msgs []redis.XMessage) (int, error) {
	var q strings.Builder
	q.WriteString(`INSERT INTO archive_audit (board, ms, seq, actor, fields) VALUES `)
	args := make([]any, 0, 5*len(msgs))
	for i, m := range msgs {
		ms, seq, err := parseEntryID(m.ID)
		if err != nil {
			return 0, err
		}
		values := make(map[string]string, len(m.Values))
		for k, v := range m.Values {
			values[k] = fmt.Sprint(v)
		}
		fields, err := json.Marshal(values)
		if err != nil {
			return 0, err
		}
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?)")
		args = append(args, boardID, ms, seq, values["actor"], string(fields))
	}
	q.WriteString(` ON CONFLICT DO NOTHING`)
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, db.q(q.String()), args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	return int(n), tx.Commit()
}

// auditReads is how many reads one query answers (UNION ALL of as many
// subqueries; SQLite allows 500).
const auditReads = 100

// AuditEntries answers audit listings that go past what Redis holds (it
// implements audit.Archived): each read in one query of the board's
// entries, or of one actor's, older than an id, newest first.
func (db *DB) AuditEntries(ctx context.Context, reads []audit.ArchivedRead) ([][]redis.XMessage, error) {
	out := make([][]redis.XMessage, len(reads))
	for start := 0; start < len(reads); start += auditReads {
		if err := db.auditEntries(ctx, reads[start:min(len(reads), start+auditReads)], out[start:]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (db *DB) auditEntries(ctx context.Context, reads []audit.ArchivedRead, out [][]redis.XMessage) error {
	var q strings.Builder
	var args []any
	for i, r := range reads {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&q, "SELECT %d, ms, seq, fields FROM (SELECT ms, seq, fields FROM archive_audit WHERE board = ?", i)
		args = append(args, r.Board)
		if r.Actor != "" {
			q.WriteString(" AND actor = ?")
			args = append(args, r.Actor)
		}
		if r.Before != "" {
			ms, seq, err := parseEntryID(r.Before)
			if err != nil {
				return err
			}
			q.WriteString(" AND (ms, seq) < (?, ?)") // a range of the index in both databases
			args = append(args, ms, seq)
		}
		fmt.Fprintf(&q, " ORDER BY ms DESC, seq DESC LIMIT ?) AS t%d", i)
		args = append(args, max(r.N, 0))
	}
	rows, err := db.sql.QueryContext(ctx, db.q(q.String()), args...)
	if err != nil {
		return fmt.Errorf("archive: audit entries: %w", err)
	}
	defer rows.Close()
	type found struct {
		ms, seq int64
		m       redis.XMessage
	}
	got := make([][]found, len(reads))
	for rows.Next() {
		var (
			i       int
			ms, seq int64
			fields  string
		)
		if err := rows.Scan(&i, &ms, &seq, &fields); err != nil {
			return fmt.Errorf("archive: audit entries: %w", err)
		}
		var values map[string]string
		if err := json.Unmarshal([]byte(fields), &values); err != nil {
			return fmt.Errorf("archive: audit entry %d-%d: %w", ms, seq, err)
		}
		m := redis.XMessage{ID: fmt.Sprintf("%d-%d", ms, seq), Values: make(map[string]any, len(values))}
		for k, v := range values {
			m.Values[k] = v
		}
		got[i] = append(got[i], found{ms, seq, m})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("archive: audit entries: %w", err)
	}
	// UNION ALL keeps no order of its own.
	for i, g := range got {
		slices.SortFunc(g, func(x, y found) int {
			if x.ms != y.ms {
				return cmp.Compare(y.ms, x.ms)
			}
			return cmp.Compare(y.seq, x.seq)
		})
		out[i] = make([]redis.XMessage, len(g))
		for j, f := range g {
			out[i][j] = f.m
		}
	}
	return nil
}

// parseEntryID reads a stream entry id "<ms>-<seq>". A listing's bound may
// pass the largest id the archive stores (a cursor's id plus one): it is
// clamped, and stands above them all.
func parseEntryID(s string) (ms, seq int64, err error) {
	a, b, ok := strings.Cut(s, "-")
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("archive: %q is not a stream entry id", s)
	}
	return int64(min(x, math.MaxInt64)), int64(min(y, math.MaxInt64)), nil
}
