package memberdata

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"podium/board"
	"podium/redisstore"
)

// race fills d.Race: the member's points in the races Redis holds (every
// period it keeps but the rolling windows, which keep none; live, frozen
// or not: its own data), then in the archive's periods that have left
// Redis, at most Limit, newest first.
func (s *Service) race(ctx context.Context, b *board.Board, member string, d *Data) error {
	ps, err := s.Store.StoredPeriods(ctx, b)
	if err != nil {
		return err
	}
	live := redisstore.LiveStandings(ctx)
	inRedis := map[string]bool{} // read there: the archive's copy of them is the same, or older
	for _, p := range ps {
		if p.Kind.Rolling() {
			continue
		}
		inRedis[p.String()] = true
		pts, err := s.Store.Race(live, b, p)
		if err != nil {
			return err
		}
		for _, pt := range pts {
			if pt.Member == member {
				d.Race = append(d.Race, RacePoint{Period: p.String(), At: pt.At.UTC(), Score: json.Number(b.Format.Number(pt.Score))})
			}
		}
	}
	if s.Archiver != nil {
		rows, err := s.Archiver.DB.MemberRace(ctx, b.ID, member, Limit+1)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if inRedis[r.Period] {
				continue
			}
			d.Race = append(d.Race, RacePoint{Period: r.Period, At: r.At.UTC(), Score: json.Number(b.Format.Number(r.Score))})
		}
	}
	slices.SortStableFunc(d.Race, func(x, y RacePoint) int { return cmp.Or(y.At.Compare(x.At), cmp.Compare(x.Period, y.Period)) })
	if len(d.Race) > Limit {
		d.Race = d.Race[:Limit]
		truncate(d, "race", true)
	}
	return nil
}
