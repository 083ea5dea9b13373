package redisstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"podium/board"
)

func units(v int64) *int64 { return &v }

// allTimeScore is the member's all-time score, and whether it has one.
func (f *fixture) allTimeScore(b *board.Board, member string) (float64, bool) {
	f.t.Helper()
	for _, e := range f.page(b, board.AllTime, 0, 100).Entries {
		if e.Member == member {
			return e.Score, true
		}
	}
	return 0, false
}

// TestRulesAtTheirBounds: every rule accepts a write at its bound and
// refuses one unit past it (422 rule_broken, naming the rule), single, in a
// batch and through FCALL, with nothing written; on a lower-is-better board
// a rise is a fall.
func TestRulesAtTheirBounds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}, Rules: &board.Rules{
		MinValue: units(-5), MaxValue: units(100), MaxScore: units(250), MaxRisePerMinute: units(150), MaxRisePerHour: units(240)}})
	if got, _ := f.store.ReadBoard(f.ctx, b.ID); got.Rules.Encode() != "min_value=-5 max_value=100 max_score=250 max_rise_per_minute=150 max_rise_per_hour=240" {
		t.Fatalf("stored rules: %q", got.Rules.Encode())
	}
	refused := func(sub board.Submission, rule string) {
		t.Helper()
		_, err := f.store.Submit(f.ctx, b.ID, sub, tester)
		var re *board.RuleError
		if !errors.As(err, &re) || re.Rule != rule || !errors.Is(err, board.ErrRuleBroken) || !strings.Contains(err.Error(), rule) {
			t.Fatalf("%+v: %v, want rule %s broken", sub, err, rule)
		}
		_, err = f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{{Member: "zed", Score: 1}, sub}, board.BatchOptions{By: tester})
		var be *board.BatchError
		if !errors.As(err, &be) || be.Index != 1 || !errors.As(err, &re) || re.Rule != rule {
			t.Fatalf("batch with %+v: %v", sub, err)
		}
	}
	refused(board.Submission{Member: "ann", Score: -6, Op: board.Set}, board.RuleMinValue)
	refused(board.Submission{Member: "ann", Score: 101}, board.RuleMaxValue)
	f.submit(b, "ann", -5, board.Set)
	f.submit(b, "ann", 5, board.Set) // a rise of 10 (from -5)
	f.submit(b, "bob", 100, board.Incr)
	// bob at 100, rising 100 this minute: 50 more is the minute's bound.
	f.submit(b, "bob", 50, board.Incr)
	refused(board.Submission{Member: "bob", Score: 1}, board.RuleMaxRisePerMinute)
	// A minute later the minute is free again; the hour holds 150 of 240.
	f.clock.Set(f.clock.Now().Add(time.Minute))
	f.submit(b, "bob", 90, board.Incr) // 240 in the hour, at its bound
	refused(board.Submission{Member: "bob", Score: 1}, board.RuleMaxRisePerHour)
	// A fall is no rise, and a set below the score rises nothing.
	f.submit(b, "bob", 40, board.Decr)
	f.submit(b, "bob", 90, board.Set)
	// max_score: cat may reach 250 (in every period), not 251.
	f.submit(b, "cat", 100, board.Incr)
	f.clock.Set(f.clock.Now().Add(time.Hour))
	f.submit(b, "cat", 100, board.Incr)
	f.clock.Set(f.clock.Now().Add(time.Minute))
	refused(board.Submission{Member: "cat", Score: 51}, board.RuleMaxScore)
	f.submit(b, "cat", 50, board.Incr)
	if s, _ := f.allTimeScore(b, "cat"); s != 250 {
		t.Fatalf("cat at %v, want 250", s)
	}
	if s, ok := f.allTimeScore(b, "zed"); ok {
		t.Fatalf("zed, of refused batches, has %v", s)
	}
	// Outside writers are held to the same rules.
	if err := f.store.LoadFunctions(f.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.rdb.FCall(f.ctx, "podium_submit", []string{defKey(b.ID)}, "dan", "incr", "101").Text(); err == nil || !strings.Contains(err.Error(), "rule max_value") {
		t.Fatalf("FCALL past max_value: %v", err)
	}
	if _, err := f.rdb.FCall(f.ctx, "podium_submit", []string{defKey(b.ID)}, "dan", "incr", "100").Text(); err != nil {
		t.Fatalf("FCALL at max_value: %v", err)
	}

	// Lower is better: a rise is a fall of the score.
	low := f.board(board.Board{ID: b.ID + "-low", Order: board.LowerIsBetter, Rules: &board.Rules{MaxRisePerMinute: units(30)}})
	f.submit(low, "ann", 100, board.Set) // from nothing up: no rise
	f.submit(low, "ann", 70, board.Best) // 30 better
	if _, err := f.store.Submit(f.ctx, low.ID, board.Submission{Member: "ann", Score: 69, Op: board.Best}, tester); !errors.Is(err, board.ErrRuleBroken) {
		t.Fatalf("a 31st unit of fall in a minute: %v", err)
	}
	f.submit(low, "ann", 75, board.Set) // worse: no rise
}

// TestRisesSlideAcrossAPeriodBoundary: the minute and hour are sliding
// windows of the member's own rises that a new day does not reset.
func TestRisesSlideAcrossAPeriodBoundary(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily}, Rules: &board.Rules{MaxRisePerMinute: units(100)}})
	midnight := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	f.clock.Set(midnight.Add(-30 * time.Second))
	f.submit(b, "ann", 80, board.Incr) // yesterday, 23:59:30
	f.clock.Set(midnight.Add(10 * time.Second))
	if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Score: 21}, tester); !errors.Is(err, board.ErrRuleBroken) {
		t.Fatalf("101 in the minute across midnight: %v", err)
	}
	r := f.submit(b, "ann", 20, board.Incr) // 100 in the minute: at the bound
	if c, _ := r.Change(board.Daily); c.After.Score != 20 || c.Period.Key != "2026-11-23" {
		t.Fatalf("today: %+v", c)
	}
	// At 00:00:30 the write of 23:59:30 has left the minute; the one of
	// 00:00:10 has not.
	f.clock.Set(midnight.Add(29*time.Second + 999*time.Millisecond))
	if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Score: 81}, tester); !errors.Is(err, board.ErrRuleBroken) {
		t.Fatalf("at 00:00:29.999: %v", err)
	}
	f.clock.Set(midnight.Add(30 * time.Second))
	f.submit(b, "ann", 80, board.Incr)
	// The rises are kept in the board's slot, for an hour.
	k := tagOf(b.ID) + ":rise:ann"
	if ttl, _ := f.rdb.TTL(f.ctx, k).Result(); ttl <= 0 || ttl > 3660*time.Second {
		t.Fatalf("rises' TTL %v", ttl)
	}
}

// TestRulesOnTheEmbeddedStore: the rules' Lua runs on miniredis too.
func TestRulesOnTheEmbeddedStore(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	s := NewStore(rdb)
	ctx := context.Background()
	b, err := s.CreateBoard(ctx, board.Board{ID: "mini", Title: "Mini", Rules: &board.Rules{MaxScore: units(10), MaxRisePerMinute: units(8)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(ctx, b.ID, board.Submission{Member: "ann", Score: 8}, tester); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(ctx, b.ID, board.Submission{Member: "ann", Score: 1}, tester); !errors.Is(err, board.ErrRuleBroken) {
		t.Fatalf("a rise of 9: %v", err)
	}
	if _, err := s.Submit(ctx, b.ID, board.Submission{Member: "bob", Score: 11, Op: board.Set}, tester); !errors.Is(err, board.ErrRuleBroken) {
		t.Fatalf("a score of 11: %v", err)
	}
}
