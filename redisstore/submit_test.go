package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"podium/board"
)

func TestOperatorsAndBeforeAfter(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime}})
	f.submit(b, "a", 50, board.Set)
	f.submit(b, "b", 40, board.Set)
	f.submit(b, "c", 30, board.Set)
	r := f.submit(b, "c", 25, board.Incr)
	c, ok := r.Change(board.AllTime)
	if !ok || c.Before != (board.Place{Ranked: true, Score: 30, Rank: 3}) || c.After != (board.Place{Ranked: true, Score: 55, Rank: 1}) {
		t.Fatalf("incr change: %+v", c)
	}
	if len(r.Changes) != 3 || r.Changes[0].Period.Kind != board.Daily || r.Changes[0].Period.Key != "2026-11-22" {
		t.Fatalf("changes per period: %+v", r.Changes)
	}
	r = f.submit(b, "c", 20, board.Decr)
	if c, _ := r.Change(board.Weekly); c.After != (board.Place{Ranked: true, Score: 35, Rank: 3}) {
		t.Fatalf("decr: %+v", c)
	}
	r = f.submit(b, "c", 10, board.Best)
	if c, _ := r.Change(board.Daily); c.After != (board.Place{Ranked: true, Score: 35, Rank: 3}) || c.Before != c.After {
		t.Fatalf("best with a worse value changed the score: %+v", c)
	}
	r = f.submit(b, "c", 45, board.Best)
	if c, _ := r.Change(board.Daily); c.After != (board.Place{Ranked: true, Score: 45, Rank: 2}) {
		t.Fatalf("best with a better value: %+v", c)
	}
	r = f.submit(b, "new", 5, board.Decr)
	if c, _ := r.Change(board.AllTime); c.Before.Ranked || c.After != (board.Place{Ranked: true, Score: -5, Rank: 4}) {
		t.Fatalf("decr of a new member: %+v", c)
	}
	lower := f.board(board.Board{ID: testBoardID(t) + "-low", Order: board.LowerIsBetter})
	f.submit(lower, "x", 9.0, board.Set)
	f.submit(lower, "x", 12, board.Best)
	f.submit(lower, "x", 7, board.Best)
	if got := rows(f.page(lower, board.AllTime, 0, 5)); !slices.Equal(got, []string{"1 x 7"}) {
		t.Fatalf("best on lower-is-better: %v", got)
	}
}

func TestPrecision(t *testing.T) {
	f := newFixture(t)
	ints := f.board(board.Board{ID: testBoardID(t) + "-int"})
	for _, v := range []float64{board.MaxExact, -board.MaxExact, 0, 1, board.MaxExact - 1} {
		f.submit(ints, "m"+ftoa(v), v, board.Set)
	}
	f.submit(ints, "negzero", math.Copysign(0, -1), board.Set)
	pg := f.page(ints, board.AllTime, 0, 10)
	want := []string{"1 m9007199254740992 9007199254740992", "2 m9007199254740991 9007199254740991", "3 m1 1", "4 m0 0", "4 negzero 0", "6 m-9007199254740992 -9007199254740992"}
	if got := rows(pg); !slices.Equal(got, want) {
		t.Fatalf("%v\nwant %v", got, want)
	}
	if math.Signbit(pg.Entries[4].Score) {
		t.Fatal("negative zero stored")
	}
	if got := ints.Format.Display(pg.Entries[0].Score); got != "9,007,199,254,740,992" {
		t.Fatalf("display %q", got)
	}
	// Beyond 2^53 and non-finite values are refused, and so is an increment
	// that would leave the exact range; nothing is written.
	for _, v := range []float64{board.MaxExact + 2, 1e300, math.Inf(1), math.NaN(), 0.5} {
		_, err := f.store.Submit(f.ctx, ints.ID, board.Submission{Member: "bad", Score: v, Op: board.Set}, tester)
		if !errors.Is(err, board.ErrInvalidScore) {
			t.Fatalf("%v accepted: %v", v, err)
		}
	}
	_, err := f.store.Submit(f.ctx, ints.ID, board.Submission{Member: "m9007199254740992", Score: 1, Op: board.Incr}, tester)
	if !errors.Is(err, board.ErrInvalidScore) || !strings.Contains(err.Error(), "9007199254740993") {
		t.Fatalf("overflowing incr: %v", err)
	}
	if got := rows(f.page(ints, board.AllTime, 0, 1)); got[0] != want[0] {
		t.Fatalf("refused incr wrote: %v", got)
	}
	// Decimal boards keep whole units of 10^-places: 0.10 + 0.20 is exactly 0.30.
	dec := f.board(board.Board{ID: testBoardID(t) + "-dec", Format: board.Format{Type: board.Decimal, Decimals: 2, Prefix: "$"}, RankStyle: board.Dense})
	f.submit(dec, "sum", 10, board.Incr)
	f.submit(dec, "sum", 20, board.Incr)
	f.submit(dec, "set", 30, board.Set)
	pg = f.page(dec, board.AllTime, 0, 5)
	if got := rows(pg); !slices.Equal(got, []string{"1 sum 30", "1 set 30"}) {
		t.Fatalf("0.1+0.2 must tie with 0.3 on a 2-decimal board: %v", got)
	}
	if got := dec.Format.Display(pg.Entries[0].Score); got != "$0.30" {
		t.Fatalf("display %q", got)
	}
	if _, err := f.store.Submit(f.ctx, dec.ID, board.Submission{Member: "x", Score: 12.5, Op: board.Set}, tester); !errors.Is(err, board.ErrInvalidScore) {
		t.Fatalf("three decimals on a two-decimal board: %v", err)
	}
	// The largest value a 2-place board keeps comes back exactly, and one
	// more cent is refused with the exact result in the message.
	top, _ := dec.Format.ParseScore("90071992547409.92", false) // 2^53 units
	f.submit(dec, "top", top, board.Set)
	if st, _ := f.store.Ranks(f.ctx, dec, dec.Current(board.AllTime, f.clock.Now()), []string{"top"}); dec.Format.Display(st[0].Score) != "$90,071,992,547,409.92" {
		t.Fatalf("edge value shown as %s", dec.Format.Display(st[0].Score))
	}
	_, err = f.store.Submit(f.ctx, dec.ID, board.Submission{Member: "top", Score: 1, Op: board.Incr}, tester)
	if !errors.Is(err, board.ErrInvalidScore) || !strings.Contains(err.Error(), "90071992547409.93") {
		t.Fatalf("one cent past the edge: %v", err)
	}
	// Ties at equal floats: two members reaching 1e15 by different paths tie.
	f.submit(ints, "p1", 1e15, board.Set)
	f.submit(ints, "p2", 1e15-7, board.Set)
	f.submit(ints, "p2", 7, board.Incr)
	st, _ := f.store.Ranks(f.ctx, ints, ints.Current(board.AllTime, f.clock.Now()), []string{"p1", "p2"})
	if st[0].Rank != st[1].Rank || st[0].Score != 1e15 {
		t.Fatalf("equal floats not tied: %+v", st)
	}
}

func TestBadInputWritesNothing(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Fields: []board.Field{{Name: "lives"}}})
	f.submit(b, "ann", 5, board.Incr)
	before := dumpBoard(t, f, b.ID)
	bad := []struct {
		name string
		sub  board.Submission
		is   error
	}{
		{"empty member", board.Submission{Score: 1}, board.ErrInvalidMember},
		{"long member", board.Submission{Member: strings.Repeat("x", board.MaxMemberLen+1), Score: 1}, board.ErrInvalidMember},
		{"control character", board.Submission{Member: "a\nb", Score: 1}, board.ErrInvalidMember},
		{"invalid utf-8", board.Submission{Member: "a\xffb", Score: 1}, board.ErrInvalidMember},
		{"NaN", board.Submission{Member: "x", Score: math.NaN()}, board.ErrInvalidScore},
		{"infinity", board.Submission{Member: "x", Score: math.Inf(-1)}, board.ErrInvalidScore},
		{"too big", board.Submission{Member: "x", Score: 1e300, Op: board.Set}, board.ErrInvalidScore},
		{"negative incr", board.Submission{Member: "x", Score: -1}, board.ErrInvalidScore},
		{"unknown op", board.Submission{Member: "x", Score: 1, Op: "mul"}, board.ErrInvalidInput},
		{"wrong field count", board.Submission{Member: "x", Score: 1, Fields: []int64{1, 2}}, board.ErrInvalidInput},
		{"bad name", board.Submission{Member: "x", Score: 1, Name: "a\x00"}, board.ErrInvalidInput},
		{"bad idempotency key", board.Submission{Member: "x", Score: 1, IdempotencyKey: "has space"}, board.ErrInvalidInput},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.store.Submit(f.ctx, b.ID, tc.sub, tester)
			if !errors.Is(err, tc.is) {
				t.Fatalf("got %v, want %v", err, tc.is)
			}
			var fe *board.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("error %v names no field", err)
			}
		})
	}
	if _, err := f.store.Submit(f.ctx, "no-such-board", board.Submission{Member: "x", Score: 1}, tester); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("unknown board: %v", err)
	}
	if after := dumpBoard(t, f, b.ID); !maps2Equal(before, after) {
		t.Fatalf("bad input changed Redis:\nbefore %v\nafter  %v", before, after)
	}
	if n, _ := f.rdb.Exists(f.ctx, defKey("no-such-board")).Result(); n != 0 {
		t.Fatal("submission to an unknown board created it")
	}
}

// dumpBoard snapshots every key of a board as DUMP bytes.
func dumpBoard(t *testing.T, f *fixture, id string) map[string]string {
	t.Helper()
	keys, err := f.rdb.Keys(f.ctx, tagOf(id)+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		out[k], _ = f.rdb.Dump(f.ctx, k).Result()
	}
	return out
}

func maps2Equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestIdempotentRetry(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{})
	sub := board.Submission{Member: "ann", Score: 10, IdempotencyKey: "req-1"}
	first, err := f.store.Submit(f.ctx, b.ID, sub, tester)
	if err != nil || first.Replayed {
		t.Fatal(first, err)
	}
	var wg sync.WaitGroup
	for range 20 { // a client retrying in a storm after timeouts
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := f.store.Submit(context.Background(), b.ID, sub, tester)
			if err != nil || !r.Replayed || r.Changes[0].After != first.Changes[0].After {
				t.Errorf("retry: %+v %v", r, err)
			}
		}()
	}
	wg.Wait()
	sub.IdempotencyKey = "req-2"
	f.store.Submit(f.ctx, b.ID, sub, tester)
	if got := rows(f.page(b, board.AllTime, 0, 5)); !slices.Equal(got, []string{"1 ann 20"}) {
		t.Fatalf("retries applied more than once: %v", got)
	}
	if ttl, _ := f.rdb.TTL(f.ctx, idemKey(b.ID, "req-1")).Result(); ttl <= 0 || ttl > DefaultIdemTTL {
		t.Fatalf("idempotency key ttl %v", ttl)
	}
}

func TestConcurrentSubmissionsLoseNothing(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}})
	const workers, each = 16, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				m := fmt.Sprintf("m%d", (w+i)%7)
				if _, err := f.store.Submit(context.Background(), b.ID, board.Submission{Member: m, Score: 1}, tester); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, k := range []board.Kind{board.Daily, board.AllTime} {
		sum := 0.0
		for _, e := range f.page(b, k, 0, 50).Entries {
			sum += e.Score
		}
		if sum != workers*each {
			t.Fatalf("%s: total %v, want %d", k, sum, workers*each)
		}
	}
}

func TestPeriodsAreWrittenTogetherAndRollOver(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: board.Kinds, TimeZone: "Asia/Tokyo", Schedule: "0 18 * * FRI"})
	f.clock.Set(time.Date(2026, 12, 31, 14, 30, 0, 0, time.UTC)) // 23:30 in Tokyo
	f.submit(b, "ann", 10, board.Incr)
	f.clock.Set(time.Date(2026, 12, 31, 15, 30, 0, 0, time.UTC)) // 00:30 on 1 January in Tokyo
	f.submit(b, "ann", 5, board.Incr)

	want := map[string]float64{
		"day:2026-12-31": 10, "day:2027-01-01": 5,
		"week:2026-W53": 15, "month:2026-12": 10, "month:2027-01": 5,
		"year:2026": 10, "year:2027": 5, "all": 15, "custom:20261225T0900Z": 15,
	}
	for label, score := range want {
		p, err := parseLabel(label, b)
		if err != nil {
			t.Fatal(err)
		}
		pg, err := f.store.Page(f.ctx, b, p, 0, 5)
		if err != nil || len(pg.Entries) != 1 || pg.Entries[0].Score != score {
			t.Fatalf("%s: %v %v, want %v", label, rows(pg), err, score)
		}
	}
	sts, err := f.store.Member(f.ctx, b, "ann")
	if err != nil || len(sts) != len(board.Kinds) || sts[8].Period.Kind != board.Last30d || sts[8].Score != 15 || sts[0].Period.Key != "2027-01-01" || sts[1].Period.Key != "2026-W53" || sts[1].Score != 15 {
		t.Fatalf("member standing: %+v %v", sts, err)
	}
}

func TestSizeCap(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Cap: 3, Periods: []board.Kind{board.Daily, board.AllTime}})
	for i, s := range []float64{50, 10, 40, 30, 60} {
		f.submit(b, fmt.Sprintf("m%d", i), s, board.Set)
	}
	if got := rows(f.page(b, board.AllTime, 0, 10)); !slices.Equal(got, []string{"1 m4 60", "2 m0 50", "3 m2 40"}) {
		t.Fatalf("capped: %v", got)
	}
	r := f.submit(b, "late", 5, board.Set)
	if c, _ := r.Change(board.AllTime); c.After.Ranked {
		t.Fatalf("a score below the cap is reported ranked: %+v", c)
	}
	if n, _ := f.rdb.HLen(f.ctx, entriesKey(ZSetKey(b.ID, b.Current(board.AllTime, f.clock.Now())))).Result(); n != 3 {
		t.Fatalf("trimmed members left in the entry hash: %d", n)
	}
}

// TestOutsideWriters covers boards that a game server writes with ZINCRBY:
// member tie-break boards, with competition or ordinal ranks, right after any
// plain write; dense ranks on them are refused.
func TestOutsideWriters(t *testing.T) {
	f := newFixture(t)
	if _, err := f.store.CreateBoard(f.ctx, board.Board{ID: testBoardID(t) + "-dense", Title: "x", TieBreak: board.ByMember, RankStyle: board.Dense}); !errors.Is(err, board.ErrInvalidBoard) {
		t.Fatalf("member tie-break with dense ranks: %v", err)
	}
	b := f.board(board.Board{TieBreak: board.ByMember})
	all := b.Current(board.AllTime, f.clock.Now())
	z := ZSetKey(b.ID, all)
	f.submit(b, "ann", 10, board.Set)
	for _, m := range []string{"bob", "cat", "dan"} {
		f.rdb.ZIncrBy(f.ctx, z, 7, m)
	}
	f.rdb.ZIncrBy(f.ctx, z, 3, "ann")
	if got := rows(f.page(b, board.AllTime, 0, 10)); !slices.Equal(got, []string{"1 ann 13", "2 dan 7", "2 cat 7", "2 bob 7"}) {
		t.Fatalf("competition after outside writes: %v", got)
	}
	b.RankStyle = board.Ordinal
	if got := rows(f.page(b, board.AllTime, 0, 10)); !slices.Equal(got, []string{"1 ann 13", "2 dan 7", "3 cat 7", "4 bob 7"}) {
		t.Fatalf("ordinal after outside writes: %v", got)
	}
}
