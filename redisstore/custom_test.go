package redisstore

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"podium/board"
)

// TestCustomPeriodsRollOverAcrossDST: a board on "0 18 * * FRI" in Paris
// keeps one sorted set per Friday-to-Friday period, whose keys ParseZSetKey
// reads back; writes on either side of a boundary, and across the end of
// summer time, land in the period the schedule says, and every period
// reads as it was written.
func TestCustomPeriodsRollOverAcrossDST(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.Custom, board.AllTime}, TimeZone: "Europe/Paris", Schedule: "0 18 * * FRI", ScheduleName: "Round"})
	writes := []struct {
		at    time.Time
		score float64
		round string
	}{
		{time.Date(2026, 10, 23, 15, 59, 0, 0, time.UTC), 1, "20261016T1600Z"}, // Friday 17:59 CEST: the round before
		{time.Date(2026, 10, 23, 16, 0, 0, 0, time.UTC), 2, "20261023T1600Z"},  // 18:00 CEST: the next begins
		{time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC), 4, "20261023T1600Z"},  // 02:30 CET, after the clocks went back
		{time.Date(2026, 10, 30, 16, 59, 0, 0, time.UTC), 8, "20261023T1600Z"}, // Friday 17:59 CET: still the same round (169 hours)
		{time.Date(2026, 10, 30, 17, 0, 0, 0, time.UTC), 16, "20261030T1700Z"}, // 18:00 CET
	}
	want := map[string]float64{}
	for _, w := range writes {
		f.clock.Set(w.at)
		f.submit(b, "ann", w.score, board.Incr)
		want[w.round] += w.score
		if p := b.Current(board.Custom, w.at); p.Key != w.round {
			t.Fatalf("at %s the round is %s, want %s", w.at, p.Key, w.round)
		}
	}
	for key, total := range want {
		p, err := b.PeriodOf(board.Custom, key)
		if err != nil {
			t.Fatal(err)
		}
		z := ZSetKey(b.ID, p)
		if z != tagOf(b.ID)+":c:"+key {
			t.Fatalf("key %s", z)
		}
		if id, k, pk, ok := ParseZSetKey(z); !ok || id != b.ID || k != board.Custom || pk != key {
			t.Fatalf("ParseZSetKey(%s) = %s %s %s %v", z, id, k, pk, ok)
		}
		pg, err := f.store.Page(f.ctx, b, p, 0, 5)
		if err != nil || len(pg.Entries) != 1 || pg.Entries[0].Score != total {
			t.Fatalf("round %s: %v %v, want %v", key, rows(pg), err, total)
		}
	}
	// The member's standings list the round in progress, beside the week.
	sts, err := f.store.Member(f.ctx, b, "ann")
	if err != nil || len(sts) != 3 || sts[1].Period.Kind != board.Custom || sts[1].Period.Key != "20261030T1700Z" || sts[1].Score != 16 {
		t.Fatalf("standings: %+v %v", sts, err)
	}
}

// TestCustomPeriodsFromFCALL: outside writers follow the schedule the app
// keeps in Redis, on Redis' clock.
func TestCustomPeriodsFromFCALL(t *testing.T) {
	f := realFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Custom, board.AllTime}, TimeZone: "America/New_York", Schedule: "every 5h from 2026-03-07T22:00"})
	before := b.Current(board.Custom, time.Now())
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "incr", "7"); err != nil {
		t.Fatal(err)
	}
	after := b.Current(board.Custom, time.Now())
	for _, p := range []board.Period{before, after} {
		if pg, err := f.store.Page(f.ctx, b, p, 0, 5); err == nil && len(pg.Entries) == 1 {
			if pg.Entries[0].Score != 7 {
				t.Fatalf("score %v", rows(pg))
			}
			return
		}
	}
	keys, _ := f.rdb.Keys(f.ctx, tagOf(b.ID)+":c:*").Result()
	t.Fatalf("the write is in none of %s, %s: %v (periods %s)", before.Key, after.Key, keys, strconv.Quote(before.String()))
}

// TestFCALLReadsAScheduleWrittenEarlier: the schedule FCALL reads was
// written by the app ten days ago (an hourly schedule lists 840 periods);
// the period of now is found deep inside it, and past the schedule's end
// the write is refused, naming the cause.
func TestFCALLReadsAScheduleWrittenEarlier(t *testing.T) {
	f := realFixture(t)
	for _, c := range []struct {
		ago time.Duration
		ok  bool
	}{{240 * time.Hour, true}, {40 * 24 * time.Hour, false}} {
		earlier := NewStore(f.rdb, WithClock(func() time.Time { return time.Now().Add(-c.ago) }))
		_ = earlier.DeleteBoard(f.ctx, "hourly")
		b, err := earlier.CreateBoard(f.ctx, board.Board{ID: "hourly", Title: "Hourly", Periods: []board.Kind{board.Custom}, Schedule: "0 * * * *"})
		if err != nil {
			t.Fatal(err)
		}
		before := b.Current(board.Custom, time.Now())
		_, err = fcall(f.ctx, f.rdb, &b, "ann", "incr", "7")
		if !c.ok {
			if err == nil || !strings.Contains(err.Error(), "no custom period in the schedule covers now") {
				t.Fatalf("a schedule written %s ago: %v", c.ago, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if after := b.Current(board.Custom, time.Now()); after.Key != before.Key {
			continue // the hour turned during the call: nothing to compare
		}
		if pg, err := f.store.Page(f.ctx, &b, before, 0, 5); err != nil || len(pg.Entries) != 1 {
			t.Fatalf("written %s ago: %v %v", c.ago, rows(pg), err)
		}
	}
	_ = f.store.DeleteBoard(f.ctx, "hourly")
}
