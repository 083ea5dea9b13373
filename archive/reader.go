package archive

import (
	"context"
	"database/sql"
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

// Each calls fn with the period's entries in board order, a page at a time,
// each with its member's values of the board's attributes (Entry.Segments).
func (r *Reader) Each(ctx context.Context, b *board.Board, p board.Period, fn func([]board.Entry) error) error {
	return r.EachIn(ctx, b, p, board.Segment{}, fn)
}

// EachIn is Each of segment seg's members only (all of them when seg is
// zero): Rank and Position are then within the segment, GlobalRank the
// rank on the period, as a segment's pages give them.
func (r *Reader) EachIn(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, fn func([]board.Entry) error) error {
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
	league, err := r.leagueRowsOf(ctx, b, p, !snap.Frozen.IsZero())
	if err != nil {
		return err
	}
	if snap.Total == 0 && snap.Frozen.IsZero() {
		// Expired from Redis: the archive has it, or it is gone (ErrGone).
		past, err := r.Store.FromPast(ctx, b, p)
		if err != nil {
			return err
		}
		if past && r.DB != nil {
			return r.fromArchive(ctx, b, p, seg, league, fn)
		}
	}
	in := segmentFilter(b, seg)
	for offset := 0; offset < snap.Total; offset += pageSize {
		pg, err := snap.Page(ctx, offset, pageSize)
		if err != nil {
			return err
		}
		if len(pg.Entries) == 0 {
			return nil
		}
		if err := withValues(ctx, snap, pg.Entries); err != nil {
			return err
		}
		if league != nil {
			league.fromValues(pg.Entries) // before the filter: ranks within the whole cohort
		}
		if es := in(pg.Entries); len(es) > 0 {
			if league != nil {
				if err := league.finish(ctx, es); err != nil {
					return err
				}
			}
			if err := fn(es); err != nil {
				return err
			}
		}
	}
	return nil
}

// segmentFilter keeps, of a period's entries handed over in board order,
// those of segment seg, ranked within it as the archive ranks them
// (board.ListRanker); with no segment it keeps them all.
func segmentFilter(b *board.Board, seg board.Segment) func([]board.Entry) []board.Entry {
	if seg.IsZero() {
		return func(es []board.Entry) []board.Entry { return es }
	}
	r := board.ListRanker{Style: b.RankStyle}
	return func(es []board.Entry) []board.Entry {
		out := es[:0]
		for _, e := range es {
			if v, ok := e.Segments[seg.Attr]; !ok || v != seg.Value {
				continue
			}
			e.GlobalRank, e.GlobalPosition = e.Rank, e.Position
			e.Position = r.Count()
			e.Rank = r.Next(e.GlobalRank)
			out = append(out, e)
		}
		return out
	}
}

// exportTTL bounds how long an export's snapshot may outlive a crash.
const exportTTL = 30 * time.Minute

// fromArchive reads the period in one query, so a final archiving pass that
// rewrites it meanwhile cannot mix two copies; rows stream from the cursor.
// A segment's members are a range of archive_segments' primary key, each
// joined to its entry.
// In a period of the league's kind each entry is joined to its place in
// the cohort standings (a seek of archive_segments' member index).
func (r *Reader) fromArchive(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, league *leagueRows, fn func([]board.Entry) error) error {
	cohorts, cohortJoin := `, NULL, NULL`, ``
	if league != nil {
		cohorts = `, l.value, l.rank`
		cohortJoin = ` LEFT JOIN archive_segments l ON l.board = e.board AND l.period = e.period AND l.attr = '` + redisstore.LeagueAttr + `' AND l.member = e.member`
	}
	var rs *sql.Rows
	var err error
	if seg.IsZero() {
		rs, err = r.DB.sql.QueryContext(ctx, r.DB.q(`SELECT e.position, e.rank, e.member, e.name, e.score, e.fields, e.rank, e.position, e.segments`+cohorts+` FROM archive_entries e`+cohortJoin+`
			WHERE e.board = ? AND e.period = ? ORDER BY e.position`), b.ID, p.String())
	} else {
		rs, err = r.DB.sql.QueryContext(ctx, r.DB.q(`SELECT `+segmentColumns+`, e.segments`+cohorts+segmentFrom+cohortJoin+segmentWhere+` ORDER BY s.position`),
			b.ID, p.String(), seg.Attr, seg.Value)
	}
	if err != nil {
		return fmt.Errorf("archive: read %s of %q: %w", p, b.ID, err)
	}
	defer rs.Close()
	page := make([]board.Entry, 0, pageSize)
	for rs.Next() {
		var e board.Entry
		var fields, values string
		var place sql.NullString
		var cohortRank sql.NullInt64
		if err := rs.Scan(&e.Position, &e.Rank, &e.Member, &e.Name, &e.Score, &fields, &e.GlobalRank, &e.GlobalPosition, &values, &place, &cohortRank); err != nil {
			return fmt.Errorf("archive: read %s of %q: %w", p, b.ID, err)
		}
		if league != nil && place.Valid {
			league.place(&e, place.String, int(cohortRank.Int64))
		}
		e.Fields, e.Segments = decodeFields(fields), decodeValues(values)
		if seg.IsZero() {
			e.GlobalRank, e.GlobalPosition = 0, 0
		}
		page = append(page, e)
		if len(page) == pageSize {
			if err := r.hand(ctx, league, page, fn); err != nil {
				return err
			}
			page = page[:0]
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("archive: read %s of %q: %w", p, b.ID, err)
	}
	if len(page) > 0 {
		return r.hand(ctx, league, page, fn)
	}
	return nil
}

// hand gives fn a page of the archive's entries, with their league's
// results first in a period of the league's kind.
func (r *Reader) hand(ctx context.Context, league *leagueRows, page []board.Entry, fn func([]board.Entry) error) error {
	if league != nil {
		if err := league.finish(ctx, page); err != nil {
			return err
		}
	}
	return fn(page)
}
