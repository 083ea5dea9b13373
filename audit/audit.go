// Package audit keeps the record of every change made by an admin or an API
// key: who, when, which board, member and period, the value before and after,
// and why.
//
// A board's changes live in the board's own streams (board.AuditStream and
// one per actor, board.AuditActorStream), in the board's hash slot: the
// script that changes scores appends their entry in the same atomic step, so
// a change and its entry exist together or not at all, and a Redis Cluster
// spreads the log with the boards. Record writes the other board changes
// (definitions, renames, removals) to the same streams. Changes that belong
// to no board (admins, sessions, keys) go to one global stream and one per
// actor. Views that span boards ("all", "by actor") merge the streams at
// read time, newest first by entry id (the millisecond it was written on
// its Redis node; entries of the same millisecond in different streams come
// stream by stream). A board's streams keep its newest rows, AUDIT_KEEP of
// them (board.WithAuditKeep); the global ones their newest MaxLen entries,
// trimmed approximately. Where an archive copies the boards' streams to SQL
// (SetArchive), Redis trims only what the archive holds, and a listing
// pages on from each board stream's oldest entry in Redis into the archive.
package audit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/redisstore"
)

// MaxLen is how many entries each global stream keeps.
const MaxLen = 1_000_000

// The global streams. Before board streams existed every entry went here
// and to a stream per board (legacyBoardKey), which the board view still reads.
const (
	allKey         = "podium:audit"
	legacyBoardKey = "podium:audit:board:"
	actorKey       = "podium:audit:actor:"
	actorSet       = "podium:audit:actors"
)

// ErrBadCursor is List's answer to a cursor it did not hand out: the caller
// sent it, so it is the caller's mistake, not the store's.
var ErrBadCursor = errors.New("audit: bad cursor")

// Entry is one change.
type Entry struct {
	ID     string // the entry's place in a listing: the cursor for the next page
	Time   time.Time
	Actor  string // "admin:alice" or "key:ci-bot (k3f9a2b1)"
	Action string // "score.incr", "member.remove", "period.reset", "board.create", ...
	Board  string
	Member string
	Period string
	Before string
	After  string
	Reason string
	// Periods is every period a score change wrote, each with its own
	// before and after, the entry's Period first (its Before and After are
	// that period's). Entries written before the log kept every period hold
	// only that one; other actions leave it empty.
	Periods []PeriodChange
}

// PeriodChange is a score change in one period, as the log shows it.
type PeriodChange struct {
	Period, Before, After string
}

// Log writes and reads the audit streams.
type Log struct {
	rdb     redis.UniversalClient
	archive Archived // nil: Redis only
}

// New makes a log on a Redis client.
func New(rdb redis.UniversalClient) *Log { return &Log{rdb: rdb} }

// recordBoard appends a one-row entry to a board's stream and its actor's,
// in the board's slot, in one step, and counts the rows (the board's next
// score write trims the streams to their cap: see redisstore/lua/lib/audit.lua).
// The actor's copy takes the board entry's id, as audit_add's does, so the
// archive's copy of the board stream continues the actor's exactly.
var recordBoard = redis.NewScript(`
local fields = {}
for i = 2, #ARGV do fields[#fields + 1] = ARGV[i] end
fields[#fields + 1], fields[#fields + 2] = 'n', '1'
local id = redis.call('XADD', KEYS[1], '*', unpack(fields))
local r = redis.pcall('XADD', KEYS[2], id, unpack(fields))
if type(r) == 'table' and r.err then redis.call('XADD', KEYS[2], '*', unpack(fields)) end
for i = 1, 2 do redis.call('HINCRBY', KEYS[4], KEYS[i], 1) end
redis.call('SADD', KEYS[3], ARGV[1])
if KEYS[5] then redis.call('SET', KEYS[5], id) end
return 1`)

// DeleteAction is the action of a board's deletion. Its entry marks where
// the log of a board made again under the id begins (Cut).
const DeleteAction = "board.delete"

// Cut is the id of the newest deletion entry of boardID's stream, "" when
// it has none: Filter.After for a log of the board that exists now only.
func (l *Log) Cut(ctx context.Context, boardID string) (string, error) {
	id, err := l.rdb.Get(ctx, redisstore.AuditCut(boardID)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("audit: where the log of %q begins: %w", boardID, err)
	}
	return id, nil
}

// Record appends an entry: a board's to the board's streams, any other to
// the global ones. Score changes are recorded by the board's write itself.
func (l *Log) Record(ctx context.Context, e Entry) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	values := []any{
		"t", strconv.FormatInt(e.Time.UnixMilli(), 10), "actor", e.Actor, "action", e.Action,
		"board", e.Board, "member", e.Member, "period", e.Period, "before", e.Before, "after", e.After, "reason", e.Reason,
	}
	_, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		if e.Board != "" {
			keys := []string{redisstore.AuditStream(e.Board), redisstore.AuditActorStream(e.Board, e.Actor), redisstore.AuditActors(e.Board), redisstore.AuditRows(e.Board)}
			if e.Action == DeleteAction {
				keys = append(keys, redisstore.AuditCut(e.Board)) // where a board made again under the id starts
			}
			recordBoard.Eval(ctx, p, keys, append([]any{e.Actor}, values...)...)
			p.SAdd(ctx, redisstore.AuditedKey, e.Board)
			return nil
		}
		// Keys in different slots: a pipeline, not a transaction, so the
		// log works on a Redis Cluster.
		for _, key := range []string{allKey, actorKey + e.Actor} {
			p.XAdd(ctx, &redis.XAddArgs{Stream: key, MaxLen: MaxLen, Approx: true, Values: values})
		}
		p.SAdd(ctx, actorSet, e.Actor)
		return nil
	})
	if err != nil {
		return fmt.Errorf("audit: record %s by %s: %w", e.Action, e.Actor, err)
	}
	return nil
}
