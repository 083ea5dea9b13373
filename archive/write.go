package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"podium/board"
	"podium/redisstore"
)

// write replaces the archive's copy of a period with a snapshot's rows:
// its members, on a team board its team standing, and its race, all or
// nothing.
func (a *Archiver) write(ctx context.Context, b *board.Board, p board.Period, pass int, snap *redisstore.Snapshot, def string) (int, error) {
	db := a.DB
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("archive: begin %s of %q: %w", p, b.ID, err)
	}
	defer tx.Rollback()
	var had int
	switch err := tx.QueryRowContext(ctx, db.q(`SELECT pass FROM archive_periods WHERE board = ? AND period = ?`), b.ID, p.String()).Scan(&had); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return 0, fmt.Errorf("archive: read %s of %q: %w", p, b.ID, err)
	case had > pass:
		return 0, fmt.Errorf("archive: %s of %q already has its final copy; an earlier pass does not replace it", p, b.ID)
	}
	for _, q := range []string{`DELETE FROM archive_entries WHERE board = ? AND period = ?`, `DELETE FROM archive_segments WHERE board = ? AND period = ?`} {
		if _, err := tx.ExecContext(ctx, db.q(q), b.ID, p.String()); err != nil {
			return 0, fmt.Errorf("archive: clear %s of %q: %w", p, b.ID, err)
		}
	}
	segs := newSegmentWriter(db, tx, b, p)
	pos := 0
	for pos < snap.Total {
		pg, err := snap.Page(ctx, pos, pageSize)
		if err != nil {
			return 0, err
		}
		if len(pg.Entries) == 0 {
			break
		}
		if err := withValues(ctx, snap, pg.Entries); err != nil {
			return 0, err
		}
		if err := db.insert(ctx, tx, b.ID, p.String(), pos, pg.Entries); err != nil {
			return 0, fmt.Errorf("archive: copy %s of %q: %w", p, b.ID, err)
		}
		if err := segs.add(ctx, pg.Entries); err != nil {
			return 0, err
		}
		pos += len(pg.Entries)
	}
	if err := segs.flush(ctx); err != nil {
		return 0, err
	}
	if pos != snap.Total {
		return 0, fmt.Errorf("archive: %s of %q: copied %d rows of the %d in its snapshot (did it expire?); nothing was recorded", p, b.ID, pos, snap.Total)
	}
	teams, err := db.writeTeams(ctx, tx, b, p, snap)
	if err != nil {
		return 0, err
	}
	if err := a.writeRace(ctx, tx, b, p); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, db.q(`DELETE FROM archive_periods WHERE board = ? AND period = ?`), b.ID, p.String()); err != nil {
		return 0, fmt.Errorf("archive: record %s of %q: %w", p, b.ID, err)
	}
	if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO archive_periods (board, period, starts_at, ends_at, members, pass, archived_at, definition, teams, segments, cohorts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		b.ID, p.String(), p.Start.UnixMicro(), p.End.UnixMicro(), pos, pass, a.Store.Now().UnixMicro(), def, teams, segs.written, segs.cohorts); err != nil {
		return 0, fmt.Errorf("archive: record %s of %q: %w", p, b.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("archive: commit %s of %q: %w", p, b.ID, err)
	}
	return pos, nil
}
