package redisstore

// The race: each period's score-over-time history of its top, kept by
// the submit script (lua/lib/race.lua) in a capped list beside the
// period's sorted set, so API, console and FCALL writes all record it. It
// lives and dies with the period's keys (expiry, reset, a board's delete);
// an erasure rewrites it. Once a closed period's keys have expired, the
// archive holds its race (Past.Race).

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"podium/board"
)

// RaceKey is the race list of board id's period p.
func RaceKey(id string, p board.Period) string { return ZSetKey(id, p) + ":race" }

// Race is period p's race, oldest point first. The public of a frozen
// board sees the points made before the freeze (the freeze's copy of the
// list, lib/freeze.lua); the admins' reads
// (LiveStandings) and everyone after the reveal see them all. Rolling
// windows keep no race (nil).
func (s reader) Race(ctx context.Context, b *board.Board, p board.Period) ([]board.RacePoint, error) {
	if p.Kind.Rolling() {
		return nil, nil
	}
	since, err := s.publicFreeze(ctx, b)
	if err != nil {
		return nil, err
	}
	if p.Ended(since) {
		since = time.Time{} // closed before the freeze: shown as it is
	}
	// The freeze's copy: later points trim the live list's oldest, and how
	// many went would count the hidden writes.
	key, _ := periodSource(b, p, since)
	var pts []board.RacePoint
	past, err := s.FromPast(ctx, b, p)
	switch {
	case err != nil:
		return nil, err
	case past: // archived as it closed: after the freeze too, when it closed after it
		pts, err = s.past.Race(ctx, b.ID, p.String())
	default:
		var raw []string
		if raw, err = s.rdb.LRange(ctx, key+":race", 0, -1).Result(); err == nil {
			pts, err = parseRace(raw)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("board: race of %s of %q: %w", p, b.ID, err)
	}
	if !since.IsZero() {
		keep := pts[:0]
		for _, pt := range pts {
			if pt.At.Before(since) {
				keep = append(keep, pt)
			}
		}
		pts = keep
	}
	return pts, nil
}

// parseRace reads a race list as lib/race.lua writes it:
// "<time µs>\t<score>\t<member>" per point.
func parseRace(raw []string) ([]board.RacePoint, error) {
	out := make([]board.RacePoint, 0, len(raw))
	for _, r := range raw {
		t, rest, ok1 := strings.Cut(r, "\t")
		sc, member, ok2 := strings.Cut(rest, "\t")
		us, err1 := strconv.ParseInt(t, 10, 64)
		v, err2 := strconv.ParseFloat(sc, 64)
		if !ok1 || !ok2 || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad race point %q", r)
		}
		out = append(out, board.RacePoint{At: time.UnixMicro(us).UTC(), Member: member, Score: v})
	}
	return out, nil
}
