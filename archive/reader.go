package archive

import (
	"context"
	"fmt"

	"podium/board"
)

// Reader reads a whole period for an export: from Redis while Redis holds
// it, from the archive once its keys are gone. Exports of big periods cost
// Redis round trips or database reads by the thousand, so a Reader runs a
// few at a time and refuses more (board.ErrBusy, a 503 with Retry-After).
type Reader struct {
	Store *board.Store
	DB    *DB // nil: Redis only
	slots chan struct{}
}

// NewReader makes a reader that runs at most n exports at once.
func NewReader(store *board.Store, db *DB, n int) *Reader {
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
	total, err := r.Store.Count(ctx, b, p)
	if err != nil {
		return err
	}
	if total == 0 && r.DB != nil {
		if n, err := r.DB.Count(ctx, b.ID, p.String()); err != nil {
			return err
		} else if n > 0 {
			return r.fromArchive(ctx, b, p, fn)
		}
	}
	// From Redis, the live set page by page: a write meanwhile may move a
	// member across pages, which is shown once (a snapshot would cost the
	// period's size in Redis memory for every download).
	seen := map[string]bool{}
	for offset := 0; ; offset += pageSize {
		pg, err := r.Store.Page(ctx, b, p, offset, pageSize)
		if err != nil {
			return err
		}
		var out []board.Entry
		for _, e := range pg.Entries {
			if !seen[e.Member] {
				seen[e.Member] = true
				out = append(out, e)
			}
		}
		if len(out) > 0 {
			if err := fn(out); err != nil {
				return err
			}
		}
		if len(pg.Entries) < pageSize {
			return nil
		}
	}
}

func (r *Reader) fromArchive(ctx context.Context, b *board.Board, p board.Period, fn func([]board.Entry) error) error {
	for offset := 0; ; offset += pageSize {
		rows, err := r.DB.Rows(ctx, b.ID, p.String(), offset, pageSize)
		if err != nil {
			return err
		}
		out := make([]board.Entry, len(rows))
		for i, x := range rows {
			out[i] = board.Entry{Rank: x.Rank, Position: x.Position, Member: x.Member, Name: x.Name, Score: x.Score, Fields: x.Fields}
		}
		if len(out) > 0 {
			if err := fn(out); err != nil {
				return err
			}
		}
		if len(rows) < pageSize {
			return nil
		}
	}
}
