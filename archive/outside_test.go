package archive

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
)

// outsideWeek writes a week straight into Redis as a game server does
// (ZINCRBY on the period's key, nothing else), and returns the rows the
// board shows for it.
func outsideWeek(t *testing.T, f *fixture, key string, members int) (board.Period, []board.Entry) {
	t.Helper()
	p, err := board.ParsePeriod(board.Weekly, key, f.b.Location())
	if err != nil {
		t.Fatal(err)
	}
	z := redisstore.ZSetKey(f.b.ID, p)
	if _, err := f.store.Client().Pipelined(f.ctx, func(pipe redis.Pipeliner) error {
		for i := range members {
			pipe.ZIncrBy(f.ctx, z, float64(i%40), fmt.Sprintf("o%04d", i))
			if i%3 == 0 {
				pipe.ZIncrBy(f.ctx, z, 1, fmt.Sprintf("o%04d", i))
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var rows []board.Entry
	for off := 0; off < members; off += testPage {
		pg, err := f.store.Page(f.ctx, &f.b, p, off, testPage)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, pg.Entries...)
	}
	if len(rows) != members {
		t.Fatalf("%s shows %d rows of %d", p, len(rows), members)
	}
	return p, rows
}

// archivedAs checks the archive holds exactly rows for a period.
func archivedAs(t *testing.T, f *fixture, p board.Period, want []board.Entry) {
	t.Helper()
	got, err := f.a.DB.Past().Rows(f.ctx, f.b.ID, p.String(), 0, len(want)+1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: the archive holds %d rows, Redis showed %d", p, len(got), len(want))
	}
	for i, e := range want {
		if r := got[i]; r.Position != e.Position || r.Rank != e.Rank || r.Member != e.Member || r.Score != e.Score {
			t.Fatalf("%s row %d: archive %+v, Redis %+v", p, i, r, e)
		}
	}
}

// TestOutsideWrittenPeriodsLeaveRedis: closed weeks that a game server
// wrote straight into Redis (ZINCRBY on a member tie-break board) are
// archived by the background archiver and then expire, like the app's own:
// one just closed, found by name, and one long closed, found by the walk
// of the keyspace. Helper keys beside them are left alone.
func TestOutsideWrittenPeriodsLeaveRedis(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		def := board.Board{ID: "arcade", Title: "Arcade", Periods: []board.Kind{board.Weekly, board.AllTime}, TieBreak: board.ByMember}
		f := newFixtureWith(t, db, def, func(int, *board.Submission) {}) // 2026-W47, through the app
		recent, recentRows := outsideWeek(t, f, "2026-W45", 1500)
		old, oldRows := outsideWeek(t, f, "2025-W10", 1200)
		// Keys that look like periods but are not: helpers of a week that
		// has no scores, a frozen copy, a snapshot, and a string.
		rdb := f.store.Client()
		tag := redisstore.HashTag(f.b.ID)
		others := []string{tag + ":w:2025-W12:t", tag + ":w:2025-W12:d", tag + ":frz:w:2025-W13", tag + ":snap:0123"}
		for _, k := range others {
			rdb.ZAdd(f.ctx, k, redis.Z{Score: 1, Member: "x"})
		}
		others = append(others, tag+":w:2025-W11")
		rdb.Set(f.ctx, tag+":w:2025-W11", "x", 0)

		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.clock.Set(f.week().End.Add(2 * time.Hour)) // in W48, past W47's grace period
		f.a.Linger = time.Millisecond
		f.a.Interval = 20 * time.Millisecond
		ctx, cancel := context.WithCancel(f.ctx)
		stopped := make(chan struct{})
		go func() { defer close(stopped); f.a.Run(ctx) }()
		defer func() { cancel(); <-stopped }()

		for _, p := range []board.Period{recent, old, f.week()} {
			waitExpired(t, f, p)
		}
		archivedAs(t, f, recent, recentRows)
		archivedAs(t, f, old, oldRows)
		// Read back from the archive, as people see it.
		if pg, err := f.store.Page(f.ctx, &f.b, recent, 0, 3); err != nil || pg.Total != 1500 || pg.Entries[0].Member != recentRows[0].Member {
			t.Fatalf("%s after expiry: %+v %v", recent, pg, err)
		}
		for _, k := range others {
			if ttl := rdb.PTTL(f.ctx, k).Val(); ttl != -1 {
				t.Fatalf("%s, not a period's key, was touched: TTL %v", k, ttl)
			}
		}
		raw, _ := f.a.rawStates(f.ctx, &f.b)
		if len(raw) != 3 {
			t.Fatalf("archive states: %v", raw)
		}
	})
}

// waitExpired waits for a period to be marked expired and its key gone.
func waitExpired(t *testing.T, f *fixture, p board.Period) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		raw, err := f.a.rawStates(f.ctx, &f.b)
		if err != nil {
			t.Fatal(err)
		}
		n, err := f.store.Client().Exists(f.ctx, redisstore.ZSetKey(f.b.ID, p)).Result()
		if err != nil {
			t.Fatal(err)
		}
		if expired(raw[p.String()]) && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: state %q, key exists: %d", p, raw[p.String()], n)
		}
	}
}
