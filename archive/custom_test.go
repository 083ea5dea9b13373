package archive

import (
	"context"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// TestCustomPeriodsArchived: a cron round and a 72-hour period that roll
// over across the end of summer time in Paris (25 October 2026) are
// archived by the background archiver like calendar periods, expire from
// Redis, and read back from the archive with their titles, previous and
// next.
func TestCustomPeriodsArchived(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		for _, c := range []struct {
			schedule string
			writes   []time.Time // one write of 1, 2, 4... at each
			want     map[string]float64
		}{
			{"0 18 * * FRI", []time.Time{
				time.Date(2026, 10, 23, 15, 59, 0, 0, time.UTC), // Friday 17:59 CEST
				time.Date(2026, 10, 23, 16, 0, 0, 0, time.UTC),  // 18:00 CEST: a new round
				time.Date(2026, 10, 30, 16, 59, 0, 0, time.UTC), // 17:59 CET, after the change: the same round
				time.Date(2026, 10, 30, 17, 0, 0, 0, time.UTC),  // 18:00 CET
			}, map[string]float64{"20261016T1600Z": 1, "20261023T1600Z": 6, "20261030T1700Z": 8}},
			{"every 72h from 2026-10-20T00:00", []time.Time{
				time.Date(2026, 10, 22, 21, 59, 0, 0, time.UTC), // 23:59 CEST on the 22nd
				time.Date(2026, 10, 22, 22, 0, 0, 0, time.UTC),  // midnight CEST: the second period
				time.Date(2026, 10, 25, 21, 59, 0, 0, time.UTC), // 22:59 CET on the 25th: still the second
				time.Date(2026, 10, 25, 22, 0, 0, 0, time.UTC),  // 23:00 CET: 72 hours on, the third
			}, map[string]float64{"20261019T2200Z": 1, "20261022T2200Z": 6, "20261025T2200Z": 8}},
		} {
			rdb := newRedis(t)
			clk := &clock{}
			store := redisstore.NewStore(rdb, redisstore.WithClock(clk.Now), redisstore.WithDefinitionTTL(0), redisstore.WithPast(db.Past()))
			ctx := context.Background()
			clk.Set(c.writes[0])
			b, err := store.CreateBoard(ctx, board.Board{ID: "rounds", Title: "Rounds", Periods: []board.Kind{board.Custom, board.AllTime},
				TimeZone: "Europe/Paris", Schedule: c.schedule})
			if err != nil {
				t.Fatal(err)
			}
			for i, at := range c.writes {
				clk.Set(at)
				if _, err := store.Submit(ctx, b.ID, board.Submission{Member: "ann", Score: float64(int(1) << i), Op: board.Incr}, board.Author{Actor: "test"}); err != nil {
					t.Fatal(err)
				}
			}
			clk.Set(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)) // weeks later: every period above is closed
			f := &fixture{ctx: ctx, clock: clk, store: store, b: b, a: &Archiver{Store: store, DB: db, Grace: time.Hour, Log: quiet, Linger: time.Millisecond, Interval: 20 * time.Millisecond}}
			runCtx, cancel := context.WithCancel(ctx)
			stopped := make(chan struct{})
			go func() { defer close(stopped); f.a.Run(runCtx) }()
			for key, total := range c.want {
				p, err := b.PeriodOf(board.Custom, key)
				if err != nil {
					t.Fatal(err)
				}
				waitExpired(t, f, p)
				pg, err := store.Page(ctx, &b, p, 0, 5)
				if err != nil || len(pg.Entries) != 1 || pg.Entries[0].Score != total {
					t.Fatalf("%s %s from the archive: %+v %v, want %v", c.schedule, key, pg, err, total)
				}
				if next := p.Next(); next.Prev().Key != key || !next.Start.Equal(p.End) {
					t.Fatalf("%s %s: next %s", c.schedule, key, next.Key)
				}
			}
			cancel()
			<-stopped
		}
	})
}
