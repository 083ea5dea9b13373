package archive

// A period's race (redisstore/race.go): the points of its top over time,
// copied with the period, so a past contest's race page replays after its
// keys have expired.

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"podium/board"
	"podium/redisstore"
)

// writeRace replaces period p's race in the archive with the one Redis
// holds now (all of it: the archive keeps what admins see; public reads of
// a frozen board's open periods never come here). A late write after it
// marks the period changed, and the next pass copies the race again.
func (a *Archiver) writeRace(ctx context.Context, tx *sql.Tx, b *board.Board, p board.Period) error {
	pts, err := a.raceOf(ctx, b, p)
	if err != nil {
		return err
	}
	db := a.DB
	if _, err := tx.ExecContext(ctx, db.q(`DELETE FROM archive_race WHERE board = ? AND period = ?`), b.ID, p.String()); err != nil {
		return fmt.Errorf("archive: clear the race of %s of %q: %w", p, b.ID, err)
	}
	for seq := 0; seq < len(pts); seq += insertRows {
		chunk := pts[seq:min(len(pts), seq+insertRows)]
		var q strings.Builder
		q.WriteString(`INSERT INTO archive_race (board, period, seq, at, member, score) VALUES `)
		args := make([]any, 0, 6*len(chunk))
		for i, pt := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?, ?, ?)")
			args = append(args, b.ID, p.String(), seq+i, pt.At.UnixMicro(), pt.Member, pt.Score)
		}
		if _, err := tx.ExecContext(ctx, db.q(q.String()), args...); err != nil {
			return fmt.Errorf("archive: copy the race of %s of %q: %w", p, b.ID, err)
		}
	}
	return nil
}

// raceOf is the race of p to archive. A period that closed after the
// freeze of a board still frozen is read from the archive by the public
// (points before the freeze) once its keys expire: its race is the
// freeze's copy, whose oldest points later writes did not trim (how many
// they trimmed would count the hidden writes), and the live race's points
// from the freeze on.
func (a *Archiver) raceOf(ctx context.Context, b *board.Board, p board.Period) ([]board.RacePoint, error) {
	pts, err := a.Store.Race(redisstore.LiveStandings(ctx), b, p)
	since, frozen := b.FrozenSince(a.Store.Now())
	if err != nil || !frozen || p.Ended(since) {
		return pts, err
	}
	pub, err := a.Store.Race(ctx, b, p) // the freeze's copy, as its public reads it
	if err != nil {
		return nil, err
	}
	out := make([]board.RacePoint, 0, len(pub)+len(pts))
	for _, pt := range pub {
		if pt.At.Before(since) { // all of them, unless the freeze was lifted meanwhile
			out = append(out, pt)
		}
	}
	for _, pt := range pts {
		if !pt.At.Before(since) {
			out = append(out, pt)
		}
	}
	return out, nil
}

// Race is a period's race as archived, oldest point first (redisstore.Past).
func (p past) Race(ctx context.Context, boardID, period string) ([]board.RacePoint, error) {
	db := p.db
	rs, err := db.sql.QueryContext(ctx, db.q(`SELECT at, member, score FROM archive_race WHERE board = ? AND period = ? ORDER BY seq`), boardID, period)
	if err != nil {
		return nil, fmt.Errorf("archive: race of %s of %q: %w", period, boardID, err)
	}
	defer rs.Close()
	var out []board.RacePoint
	for rs.Next() {
		var us int64
		var pt board.RacePoint
		if err := rs.Scan(&us, &pt.Member, &pt.Score); err != nil {
			return nil, fmt.Errorf("archive: race of %s of %q: %w", period, boardID, err)
		}
		pt.At = time.UnixMicro(us).UTC()
		out = append(out, pt)
	}
	return out, rs.Err()
}

// renameRace gives an erased member's archived race points its pseudonym,
// in every period of the board (closed periods are final results, as its
// entries there).
func (db *DB) renameRace(ctx context.Context, boardID, member, pseudonym string) (int, error) {
	res, err := db.sql.ExecContext(ctx, db.q(`UPDATE archive_race SET member = ? WHERE board = ? AND member = ?`), pseudonym, boardID, member)
	if err != nil {
		return 0, fmt.Errorf("archive: race points of a member of %q: %w", boardID, err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// RacePoint is an archived point of a period's race.
type RacePoint struct {
	Period string
	board.RacePoint
}

// MemberRace is a member's points in the board's archived races, newest
// first, at most limit (a member's copy of its data, package memberdata).
func (db *DB) MemberRace(ctx context.Context, boardID, member string, limit int) ([]RacePoint, error) {
	rs, err := db.sql.QueryContext(ctx, db.q(`SELECT period, at, score FROM archive_race WHERE board = ? AND member = ? ORDER BY at DESC, period LIMIT ?`), boardID, member, limit)
	if err != nil {
		return nil, fmt.Errorf("archive: race points of a member of %q: %w", boardID, err)
	}
	defer rs.Close()
	var out []RacePoint
	for rs.Next() {
		var us int64
		pt := RacePoint{}
		if err := rs.Scan(&pt.Period, &us, &pt.Score); err != nil {
			return nil, fmt.Errorf("archive: race points of a member of %q: %w", boardID, err)
		}
		pt.At, pt.Member = time.UnixMicro(us).UTC(), member
		out = append(out, pt)
	}
	return out, rs.Err()
}
