package audit

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Archived holds the entries of boards' streams that Redis may have trimmed:
// a copy of each board's stream (board.AuditStream) with the same entry ids
// and fields. Package archive implements it; this package only reads it, so
// it needs no SQL of its own.
type Archived interface {
	// AuditEntries answers each read with up to its N entries, newest
	// first, as Redis would list them (XREVRANGE).
	AuditEntries(ctx context.Context, reads []ArchivedRead) ([][]redis.XMessage, error)
}

// ArchivedRead asks for a page of one board's archived entries.
type ArchivedRead struct {
	Board  string
	Actor  string // only this actor's entries; "" for everyone's
	Before string // an entry id: only older entries; "" from the newest
	N      int
}

// SetArchive makes listings go on in x where a board's streams end in
// Redis. Call it before the log is used; nil reads Redis only.
func (l *Log) SetArchive(x Archived) { l.archive = x }

// fillArchived reads the next entries of readers whose Redis stream has
// ended, in one request to the archive. An actor's stream shares the board
// stream's ids (audit_add in redisstore/lua/lib/audit.lua), so the archive's rows
// take the same places and the same source tag as the Redis ones: a cursor
// handed out on either side of the boundary reads on from the same row.
func (l *Log) fillArchived(ctx context.Context, rs []*reader, after *place) error {
	reads := make([]ArchivedRead, len(rs))
	for i, r := range rs {
		reads[i] = ArchivedRead{Board: r.src.board, Actor: r.src.actor, Before: r.before, N: r.chunk}
	}
	got, err := l.archive.AuditEntries(ctx, reads)
	if err != nil {
		return fmt.Errorf("audit: list the archive: %w", err)
	}
	if len(got) != len(reads) {
		return fmt.Errorf("audit: list the archive: %d answers to %d reads", len(got), len(reads))
	}
	for i, r := range rs {
		msgs := got[i]
		r.keep(msgs, after)
		if len(msgs) < r.chunk || r.floored {
			r.done = true
			continue
		}
		r.before = msgs[len(msgs)-1].ID
		r.chunk = min(2*r.chunk, 256)
	}
	return nil
}
