// Package audit keeps the record of every change made by an admin or an API
// key: who, when, which board, member and period, the value before and after,
// and why. Entries go to a Redis stream, and to one stream per board and per
// actor so both filters are reads, not scans. Each stream keeps its newest
// MaxLen entries (approximately, as XADD MAXLEN ~ trims).
package audit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// MaxLen is how many entries each stream keeps.
const MaxLen = 1_000_000

const (
	allKey   = "podium:audit"
	boardKey = "podium:audit:board:"
	actorKey = "podium:audit:actor:"
	actorSet = "podium:audit:actors"
)

// ErrBadCursor is List's answer to a cursor that is not an entry id: the
// caller sent it, so it is the caller's mistake, not the store's.
var ErrBadCursor = errors.New("audit: bad cursor")

// Entry is one change.
type Entry struct {
	ID     string // stream id; also the cursor for the next page
	Time   time.Time
	Actor  string // "admin:alice" or "key:ci-bot (k3f9a2b1)"
	Action string // "score.incr", "member.remove", "period.reset", "board.create", ...
	Board  string
	Member string
	Period string
	Before string
	After  string
	Reason string
}

// Log writes and reads the audit streams.
type Log struct{ rdb redis.UniversalClient }

// New makes a log on a Redis client.
func New(rdb redis.UniversalClient) *Log { return &Log{rdb: rdb} }

// Record appends an entry to the log, the board's stream and the actor's,
// in one transaction.
func (l *Log) Record(ctx context.Context, e Entry) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	values := []any{
		"t", strconv.FormatInt(e.Time.UnixMilli(), 10), "actor", e.Actor, "action", e.Action,
		"board", e.Board, "member", e.Member, "period", e.Period, "before", e.Before, "after", e.After, "reason", e.Reason,
	}
	_, err := l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for _, key := range l.streams(e) {
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

func (l *Log) streams(e Entry) []string {
	out := []string{allKey, actorKey + e.Actor}
	if e.Board != "" {
		out = append(out, boardKey+e.Board)
	}
	return out
}

// Filter narrows a listing; an empty field matches everything.
type Filter struct {
	Board string
	Actor string
}

// List returns up to n entries, newest first, older than the cursor before
// ("" starts at the newest), and the cursor of the next page ("" at the end).
func (l *Log) List(ctx context.Context, f Filter, before string, n int) ([]Entry, string, error) {
	key := allKey
	switch {
	case f.Actor != "":
		key = actorKey + f.Actor
	case f.Board != "":
		key = boardKey + f.Board
	}
	end := "+"
	if before != "" {
		if err := checkCursor(before); err != nil {
			return nil, "", err
		}
		if before == "0-0" { // the first possible id: nothing is older
			return nil, "", nil
		}
		end = "(" + before
	}
	var out []Entry
	for len(out) < n {
		msgs, err := l.rdb.XRevRangeN(ctx, key, end, "-", int64(n+1)).Result()
		if err != nil {
			return nil, "", fmt.Errorf("audit: list: %w", err)
		}
		for _, m := range msgs {
			e := entryOf(m)
			if f.Board != "" && e.Board != f.Board { // actor stream, filtered by board too
				continue
			}
			if len(out) == n {
				return out, out[len(out)-1].ID, nil
			}
			out = append(out, e)
		}
		if len(msgs) <= n {
			return out, "", nil
		}
		end = "(" + msgs[len(msgs)-1].ID
	}
	return out, "", nil
}

// checkCursor accepts a stream entry id as List hands them out: two unsigned
// 64-bit decimals, "<milliseconds>-<sequence>". Redis would refuse anything
// else with an error that looks like the store failing.
func checkCursor(id string) error {
	ms, seq, ok := strings.Cut(id, "-")
	if ok {
		_, err1 := strconv.ParseUint(ms, 10, 64) // no sign, no spaces, no overflow
		_, err2 := strconv.ParseUint(seq, 10, 64)
		if err1 == nil && err2 == nil {
			return nil
		}
	}
	return fmt.Errorf("%w %q: want an entry id like 1767225600000-0", ErrBadCursor, id)
}

func entryOf(m redis.XMessage) Entry {
	s := func(k string) string { v, _ := m.Values[k].(string); return v }
	ms, _ := strconv.ParseInt(s("t"), 10, 64)
	return Entry{
		ID: m.ID, Time: time.UnixMilli(ms), Actor: s("actor"), Action: s("action"), Board: s("board"),
		Member: s("member"), Period: s("period"), Before: s("before"), After: s("after"), Reason: s("reason"),
	}
}

// Actors lists who has made changes, sorted.
func (l *Log) Actors(ctx context.Context) ([]string, error) {
	out, err := l.rdb.SMembers(ctx, actorSet).Result()
	if err != nil {
		return nil, fmt.Errorf("audit: actors: %w", err)
	}
	slices.Sort(out)
	return out, nil
}
