package redisstore

// Rolling windows at their edges: the size cap, best windows fed by incr and
// decr, sum windows fed by set and best, a removal between two roll steps, a
// window as the default period.

import (
	"fmt"
	"testing"
	"time"

	"podium/board"
)

// A member the size cap trims off a window leaves its buckets too: scoring
// again, it starts from nothing, and its old day leaving takes nothing away.
func TestWindowCapTrimForgetsBuckets(t *testing.T) {
	f := newFixture(t)
	day0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	f.at(day0)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime, board.Last7d}, Cap: 2})
	f.write(b, "ann", board.Incr, 100)
	f.write(b, "bob", board.Incr, 90)
	f.write(b, "cat", board.Incr, 80) // trimmed
	f.at(day0.Add(24 * time.Hour))
	f.write(b, "cat", board.Incr, 95)
	f.at(day0.Add(7*24*time.Hour + time.Hour))
	f.roll(b)
	if got, want := f.standings(b, board.Last7d), "cat=95@1"; got != want {
		t.Fatalf("last7d: %s, want %s", got, want)
	}
}

// In a best window, incr and decr offer the score they reach in all time,
// not the window's best plus the value.
func TestWindowBestOffersReachedScores(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime, board.Last7d}, Window: board.WindowBest})
	f.write(b, "ann", board.Set, 100)
	f.write(b, "ann", board.Decr, 90)
	f.write(b, "ann", board.Incr, 5)
	f.write(b, "bob", board.Incr, 7)
	f.write(b, "bob", board.Incr, 7)
	if got, want := f.standings(b, board.Last7d), "ann=100@1 bob=14@2"; got != want {
		t.Fatalf("last7d: %s, want %s", got, want)
	}
	if got, want := f.standings(b, board.AllTime), "ann=15@1 bob=14@2"; got != want {
		t.Fatalf("all time: %s, want %s", got, want)
	}
}

// A removal while a big bucket is being taken out (between two roll steps)
// makes the roll skip no one.
func TestWindowRollWithRemovalBetweenSteps(t *testing.T) {
	f := newFixture(t)
	day0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	f.at(day0)
	b := f.board(board.Board{Periods: []board.Kind{board.Last7d}})
	subs := make([]board.Submission, rollChunk*2+1)
	for i := range subs {
		subs[i] = board.Submission{Member: fmt.Sprintf("m%04d", i), Score: float64(i + 1)}
	}
	for _, part := range [][]board.Submission{subs[:rollChunk], subs[rollChunk:]} {
		if _, err := f.store.SubmitBatch(f.ctx, b.ID, part, board.BatchOptions{By: tester, NoRanks: true}); err != nil {
			t.Fatal(err)
		}
	}
	f.at(day0.Add(24 * time.Hour))
	f.write(b, "m0010", board.Incr, 5)
	f.at(day0.Add(7*24*time.Hour + time.Hour))
	fresh, _ := f.store.readBoard(f.ctx, b.ID)
	if more, err := f.store.RollWindows(f.ctx, &fresh, 1); err != nil || !more {
		t.Fatalf("first step: %v %v", more, err)
	}
	if _, err := f.store.RemoveMember(f.ctx, b.ID, "m0010", nil, tester); err != nil {
		t.Fatal(err)
	}
	f.roll(b)
	if got := f.standings(b, board.Last7d); got != "" {
		t.Fatalf("last7d after the roll: %.200s", got)
	}
}

// A window whose board's default period it is names itself in the audit
// log's entry, and a window turned off takes its team standing with it.
func TestWindowDefaultAndTeamsOff(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime, board.Last24h, board.Last7d}, DefaultPeriod: board.Last24h, Teams: board.TeamsSum})
	f.join(b, "ann", "red", board.Incr, 10)
	e, err := f.rdb.XRevRangeN(f.ctx, AuditStream(b.ID), "+", "-", 1).Result()
	if err != nil || len(e) != 1 || e[0].Values["period"] != "last24h" {
		t.Fatalf("audit entry %v %v", e, err)
	}
	upd := *b
	upd.Periods, upd.DefaultPeriod = []board.Kind{board.AllTime}, board.AllTime
	if _, err := f.store.UpdateBoard(f.ctx, upd); err != nil {
		t.Fatal(err)
	}
	z := ZSetKey(b.ID, board.Period{Kind: board.Last7d})
	if n, _ := f.rdb.Exists(f.ctx, teamKeys(z)...).Result(); n != 0 {
		t.Fatalf("%d team keys of the window left", n)
	}
}

// In a sum window a set or a best counts as the change it made to the
// member's score (in all time here), not as the new score: a window turned
// on after the scores were made holds only what changed since.
func TestWindowSumCountsTheChangeOfASet(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime}})
	f.write(b, "a", board.Set, 100)
	f.write(b, "b", board.Set, 50)
	upd := *b
	upd.Periods = []board.Kind{board.Weekly, board.AllTime, board.Last7d}
	got, err := f.store.UpdateBoard(f.ctx, upd)
	if err != nil {
		t.Fatal(err)
	}
	b = &got
	f.write(b, "b", board.Set, 80)  // +30
	f.write(b, "a", board.Best, 90) // not better: +0
	f.write(b, "a", board.Best, 120)
	f.write(b, "a", board.Set, 110) // -10: a's window is 20 - 10
	f.write(b, "c", board.Set, 5)   // new: +5
	f.write(b, "d", board.Set, 0)   // +0 for a member the window does not hold: stays off it
	f.write(b, "e", board.Set, 7)
	f.write(b, "e", board.Best, 7) // +0 for one it holds: stays at its change
	if got, want := f.standings(b, board.Last7d), "b=30@1 a=10@2 e=7@3 c=5@4"; got != want {
		t.Fatalf("last7d: %s, want %s", got, want)
	}
	if got, want := f.standings(b, board.AllTime), "a=110@1 b=80@2 e=7@3 c=5@4 d=0@5"; got != want {
		t.Fatalf("all time: %s, want %s", got, want)
	}
	// The buckets hold the same changes, so the window rolls to zero.
	f.at(f.clock.Now().Add(8 * 24 * time.Hour))
	f.roll(b)
	if got := f.standings(b, board.Last7d); got != "" {
		t.Fatalf("last7d after a week: %q, want empty", got)
	}
}

// On a board that keeps windows only, a set sets the window: there is no
// score to measure a change against.
func TestWindowOnlyBoardSets(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Last7d}})
	f.write(b, "a", board.Incr, 10)
	f.write(b, "a", board.Set, 4)
	if got, want := f.standings(b, board.Last7d), "a=4@1"; got != want {
		t.Fatalf("last7d: %s, want %s", got, want)
	}
}
