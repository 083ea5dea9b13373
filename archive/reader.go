package archive

import (
	"context"
	"fmt"
	"time"

	"podium/board"
	"podium/redisstore"
)

// Reader reads a whole period for an export: from Redis while Redis holds
// it, from the archive once its keys are gone. Exports of big periods cost
// Redis round trips or database reads by the thousand, so a Reader runs a
// few at a time and refuses more (board.ErrBusy, a 503 with Retry-After).
type Reader struct {
	Store *redisstore.Store
	DB    *DB // nil: Redis only
	slots chan struct{}
}

// NewReader makes a reader that runs at most n exports at once.
func NewReader(store *redisstore.Store, db *DB, n int) *Reader {
	return &Reader{Store: store, DB: db, slots: make(chan struct{}, max(n, 1))}
}

// Each calls fn with the period's entries in board order, a page at a time.
func (r *Reader) Each(ctx context.Context, b *board.Board, p board.Period, fn func([]board.Entry) error) error {
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	default:
		return fmt.Errorf("archive: %d exports are running; try again in a moment: %w", cap(r.slots), board.ErrBusy)
	}
	// From Redis, a snapshot taken atomically: paging the live set by
	// position would skip or repeat members that move meanwhile. It costs
	// the period's size in Redis memory while the export runs, which the
	// limit on exports at once bounds. An export is public: a frozen
	// board's is its copy at the freeze (board.PublicSnapshot).
	snap, err := r.Store.PublicSnapshot(ctx, b, p, exportTTL)
	if err != nil {
		return err
	}
	defer snap.Close(context.WithoutCancel(ctx))
	if snap.Total == 0 && snap.Frozen.IsZero() {
		// Expired from Redis: the archive has it, or it is gone (ErrGone).
		past, err := r.Store.FromPast(ctx, b, p)
		if err != nil {
			return err
		}
		if past && r.DB != nil {
			return r.fromArchive(ctx, b, p, fn)
		}
	}
	for offset := 0; offset < snap.Total; offset += pageSize {
		pg, err := snap.Page(ctx, offset, pageSize)
		if err != nil {
			return err
		}
		if len(pg.Entries) == 0 {
			return nil
		}
		if err := fn(pg.Entries); err != nil {
			return err
		}
	}
	return nil
}

// exportTTL bounds how long an export's snapshot may outlive a crash.
const exportTTL = 30 * time.Minute

// fromArchive reads the period in one query, so a final archiving pass that
// rewrites it meanwhile cannot mix two copies; rows stream from the cursor.
func (r *Reader) fromArchive(ctx context.Context, b *board.Board, p board.Period, fn func([]board.Entry) error) error {
	rs, err := r.DB.sql.QueryContext(ctx, r.DB.q(`SELECT `+entryColumns+` FROM archive_entries
		WHERE board = ? AND period = ? ORDER BY position`), b.ID, p.String())
	if err != nil {
		return fmt.Errorf("archive: read %s of %q: %w", p, b.ID, err)
	}
	defer rs.Close()
	page := make([]board.Entry, 0, pageSize)
	for rs.Next() {
		e, err := scanEntry(rs)
		if err != nil {
			return fmt.Errorf("archive: read %s of %q: %w", p, b.ID, err)
		}
		page = append(page, e)
		if len(page) == pageSize {
			if err := fn(page); err != nil {
				return err
			}
			page = page[:0]
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("archive: read %s of %q: %w", p, b.ID, err)
	}
	if len(page) > 0 {
		return fn(page)
	}
	return nil
}
