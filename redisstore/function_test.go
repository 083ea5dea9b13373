package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// fcall submits like an outside writer: FCALL podium_submit on the raw client.
func fcall(ctx context.Context, rdb redis.UniversalClient, b *board.Board, args ...any) (string, error) {
	return rdb.FCall(ctx, "podium_submit", []string{defKey(b.ID)}, args...).Text()
}

// realFixture runs on the wall clock, as FCALL does (Redis TIME).
func realFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	f.store = NewStore(f.rdb)
	if err := f.store.LoadFunctions(f.ctx); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFunctionDenseAfterOutsideWrites is the case plain ZADD got wrong: bob 5,
// carl 5, dan 9, eve 1, then dan and eve move to 5; everyone ties at 1st.
func TestFunctionDenseAfterOutsideWrites(t *testing.T) {
	f := realFixture(t)
	b := f.board(board.Board{RankStyle: board.Dense, Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime}})
	for _, w := range []struct {
		m string
		v int
	}{{"bob", 5}, {"carl", 5}, {"dan", 9}, {"eve", 1}, {"dan", 5}, {"eve", 5}} {
		if _, err := fcall(f.ctx, f.rdb, b, w.m, "set", strconv.Itoa(w.v)); err != nil {
			t.Fatalf("fcall %s: %v", w.m, err)
		}
	}
	for _, k := range b.Periods {
		pg, err := f.store.Page(f.ctx, b, b.Current(k, time.Now()), 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range pg.Entries {
			if e.Rank != 1 || e.Score != 5 {
				t.Fatalf("%s: %v", k, rows(pg))
			}
		}
		if len(pg.Entries) != 4 {
			t.Fatalf("%s: %v", k, rows(pg))
		}
		z := ZSetKey(b.ID, b.Current(k, time.Now()))
		if n, _ := f.rdb.ZCard(f.ctx, distinctKey(z)).Result(); n != 1 {
			t.Fatalf("%s: the dense index holds %d groups, want 1", k, n)
		}
	}
}

// TestFunctionMatchesAPI applies the same random operations to twin boards,
// one through Store.Submit and one through FCALL, and compares every page:
// the two paths keep the same structures.
func TestFunctionMatchesAPI(t *testing.T) {
	f := realFixture(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, def := range []board.Board{
		{RankStyle: board.Dense, Fields: []board.Field{{Name: "clears", Desc: true}, {Name: "deaths"}}},
		{Order: board.LowerIsBetter, TieBreak: board.Latest, RankStyle: board.Competition, Cap: 6},
		{TieBreak: board.ByMember, RankStyle: board.Ordinal, Format: board.Format{Type: board.Decimal, Decimals: 2}},
	} {
		name := fmt.Sprintf("%s-%s-%s", def.Order, def.TieBreak, def.RankStyle)
		t.Run(name, func(t *testing.T) {
			def.Periods = []board.Kind{board.Daily, board.Monthly, board.AllTime}
			def.ID = testBoardID(t) + "-api"
			api := f.board(def)
			def.ID = testBoardID(t) + "-fn"
			fn := f.board(def)
			for i := 0; i < 150; i++ {
				sub := board.Submission{Member: fmt.Sprintf("m%d", r.IntN(9)), Op: []board.Op{board.Incr, board.Decr, board.Set, board.Best}[r.IntN(4)], Score: float64(r.IntN(6))}
				if r.IntN(5) == 0 {
					sub.Name = "Name " + sub.Member
				}
				args := []any{sub.Member, string(sub.Op), strconv.Itoa(int(sub.Score)), sub.Name, ""}
				if len(def.Fields) > 0 && r.IntN(2) == 0 {
					sub.Fields = []int64{int64(r.IntN(3)) - 1, int64(r.IntN(3))}
					args = append(args, sub.Fields[0], sub.Fields[1])
				}
				if _, err := f.store.Submit(f.ctx, api.ID, sub, tester); err != nil {
					t.Fatalf("submit %+v: %v", sub, err)
				}
				if _, err := fcall(f.ctx, f.rdb, fn, args...); err != nil {
					t.Fatalf("fcall %v: %v", args, err)
				}
			}
			for _, k := range def.Periods {
				pa, err := f.store.Page(f.ctx, api, api.Current(k, time.Now()), 0, 20)
				if err != nil {
					t.Fatal(err)
				}
				pf, err := f.store.Page(f.ctx, fn, fn.Current(k, time.Now()), 0, 20)
				if err != nil {
					t.Fatal(err)
				}
				show := func(pg board.Page) []string {
					out := rows(pg)
					for i, e := range pg.Entries {
						out[i] += fmt.Sprintf(" %s %v", e.Name, e.Fields)
					}
					return out
				}
				if !slices.Equal(show(pa), show(pf)) {
					t.Fatalf("%s differs:\napi   %v\nfcall %v", k, show(pa), show(pf))
				}
			}
			ra, _ := f.store.Recent(f.ctx, api, 5)
			rf, _ := f.store.Recent(f.ctx, fn, 5)
			if len(ra) != len(rf) || ra[0].Member != rf[0].Member || ra[0].Value != rf[0].Value {
				t.Fatalf("recent changes differ: %+v %+v", ra, rf)
			}
		})
	}
}

// TestFunctionRefusesBadInput: each bad call is an error that names the
// problem, and nothing is written.
func TestFunctionRefusesBadInput(t *testing.T) {
	f := realFixture(t)
	b := f.board(board.Board{Fields: []board.Field{{Name: "lives"}}, Format: board.Format{Type: board.Decimal, Decimals: 2}})
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "incr", "500", "", "k1"); err != nil {
		t.Fatal(err)
	}
	before := dumpBoard(t, f, b.ID)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"", "incr", "1"}, "member is required"},
		{[]any{"a\u200bb", "incr", "1"}, "invisible"},
		{[]any{"ann\u00a0", "incr", "1"}, "surrounding spaces"},
		{[]any{"\u3000ann", "incr", "1"}, "surrounding spaces"},
		{[]any{strings.Repeat("x", 129), "incr", "1"}, "longer than 128"},
		{[]any{"ann", "add", "1"}, "op must be"},
		{[]any{"ann", "incr", "1.5"}, "whole number of the board's unit"},
		{[]any{"ann", "incr", "9007199254740993"}, "whole number"},
		{[]any{"ann", "incr", "-1"}, "negative"},
		{[]any{"ann", "set", "1", "Bad\u202ename"}, "bidi"},
		{[]any{"ann", "set", "1", "", "k1"}, "already used"},
		{[]any{"ann", "set", "1", "", "", "1", "2"}, "1 extra fields, got 2"},
		{[]any{"ann", "set", "9007199254740992"}, ""}, // the edge itself is fine...
		{[]any{"ann", "incr", "1"}, "would leave"},    // ...one unit past it is not,
		{[]any{"ann", "incr", "2"}, "would leave"},    // nor two (2^53+2 is a double: no rounding shows it)
	} {
		_, err := fcall(f.ctx, f.rdb, b, tc.args...)
		if tc.want == "" {
			if err != nil {
				t.Fatalf("%v: %v", tc.args, err)
			}
			before = dumpBoard(t, f, b.ID)
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
		if after := dumpBoard(t, f, b.ID); !maps2Equal(before, after) {
			t.Fatalf("%v wrote", tc.args)
		}
	}
	// A true retry returns the first answer without applying it again.
	first, _ := fcall(f.ctx, f.rdb, b, "bob", "incr", "7", "", "k2")
	again, err := fcall(f.ctx, f.rdb, b, "bob", "incr", "7", "", "k2")
	if err != nil || !strings.Contains(again, `"replayed":true`) || !strings.Contains(first, `"after":{"score":0.07,`) {
		t.Fatalf("retry: %s / %s %v", first, again, err)
	}
	if _, err := f.rdb.FCall(f.ctx, "podium_submit", []string{"lb:{nope}:def"}, "a", "incr", "1").Result(); err == nil || !strings.Contains(err.Error(), "no board") {
		t.Fatalf("unknown board: %v", err)
	}
	if _, err := f.rdb.FCall(f.ctx, "podium_submit", []string{"somekey"}, "a", "incr", "1").Result(); err == nil || !strings.Contains(err.Error(), "definition") {
		t.Fatalf("wrong key: %v", err)
	}
}

// TestSchedule: the schedule FCALL reads names the periods Go computes, in
// the board's zone, across the horizon, and follows definition changes.
func TestSchedule(t *testing.T) {
	f := newFixture(t)
	now := time.Date(2026, 12, 28, 22, 30, 0, 0, time.UTC) // 2026-W53, late evening in UTC
	f.clock.Set(now)
	b := f.board(board.Board{TimeZone: "Pacific/Auckland", Periods: []board.Kind{board.Daily, board.Weekly, board.Monthly, board.Yearly, board.Custom, board.AllTime}, Schedule: "every 72h from 2026-12-01T00:00"})
	got, err := f.rdb.HGetAll(f.ctx, schedKey(b.ID)).Result()
	if err != nil {
		t.Fatal(err)
	}
	if got["version"] != strconv.FormatInt(b.Version, 10) {
		t.Fatalf("schedule version %q, board %d", got["version"], b.Version)
	}
	for _, k := range []board.Kind{board.Daily, board.Weekly, board.Monthly, board.Yearly, board.Custom} {
		w := strings.Fields(got[string(k)])
		cur := b.Current(k, f.clock.Now())
		if len(w) < 3 || w[1] != cur.Key || w[0] != strconv.FormatInt(cur.Start.UnixMicro(), 10) {
			t.Fatalf("%s schedule starts %v, want %s at %d", k, w[:min(3, len(w))], cur.Key, cur.Start.UnixMicro())
		}
		last, _ := strconv.ParseInt(w[len(w)-1], 10, 64)
		if time.UnixMicro(last).Before(now.Add(scheduleHorizon)) {
			t.Fatalf("%s schedule ends at %v, before the horizon", k, time.UnixMicro(last))
		}
		for i := 0; i+2 < len(w); i += 2 { // contiguous: each period ends where the next starts
			start, _ := strconv.ParseInt(w[i], 10, 64)
			p := b.Current(k, time.UnixMicro(start))
			if p.Key != w[i+1] || strconv.FormatInt(p.End.UnixMicro(), 10) != w[i+2] {
				t.Fatalf("%s entry %d: %v", k, i/2, w[i:i+3])
			}
		}
	}
	b.Periods, b.Schedule = []board.Kind{board.Weekly, board.AllTime}, ""
	upd, err := f.store.UpdateBoard(f.ctx, *b)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = f.rdb.HGetAll(f.ctx, schedKey(b.ID)).Result()
	if got["version"] != strconv.FormatInt(upd.Version, 10) || got["day"] != "" || got["week"] == "" {
		t.Fatalf("schedule after update: %v", got)
	}
}

// beforeScript runs f once, just before the first submit script reaches
// Redis: the window between reading a definition and writing with it.
type beforeScript struct {
	once func()
}

func (h *beforeScript) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *beforeScript) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if n := cmd.Name(); (n == "evalsha" || n == "eval") && h.once != nil {
			f := h.once
			h.once = nil
			f()
		}
		return next(ctx, cmd)
	}
}
func (h *beforeScript) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestStaleDefinition: a board changed, or deleted and made again with
// another order, between the writer's read and its script is written with
// the new settings, never the old ones.
func TestStaleDefinition(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}})
	hook := &beforeScript{}
	rdb := srv.Client(t)
	rdb.AddHook(hook)
	writer := NewStore(rdb, WithClock(f.clock.Now))

	hook.once = func() {
		upd := *b
		upd.Periods = []board.Kind{board.Weekly, board.AllTime}
		if _, err := f.store.UpdateBoard(f.ctx, upd); err != nil {
			t.Error(err)
		}
	}
	if _, err := writer.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Score: 5}, tester); err != nil {
		t.Fatal(err)
	}
	now := f.clock.Now()
	if n, _ := f.rdb.ZCard(f.ctx, ZSetKey(b.ID, b.Current(board.Daily, now))).Result(); n != 0 {
		t.Fatal("written to a period the board no longer has")
	}
	if n, _ := f.rdb.ZCard(f.ctx, ZSetKey(b.ID, b.Current(board.Weekly, now))).Result(); n != 1 {
		t.Fatal("not written to the period the board has now")
	}

	hook.once = func() {
		if err := f.store.DeleteBoard(f.ctx, b.ID); err != nil {
			t.Error(err)
		}
		if _, err := f.store.CreateBoard(f.ctx, board.Board{ID: b.ID, Title: "again", Order: board.LowerIsBetter}); err != nil {
			t.Error(err)
		}
	}
	if _, err := writer.Submit(f.ctx, b.ID, board.Submission{Member: "bob", Score: 3}, tester); err != nil {
		t.Fatal(err)
	}
	f.submit(&board.Board{ID: b.ID}, "cat", 1, board.Incr)
	nb, _ := f.store.Board(f.ctx, b.ID)
	if got := rows(f.page(&nb, board.AllTime, 0, 5)); !slices.Equal(got, []string{"1 cat 1", "2 bob 3"}) {
		t.Fatalf("after delete and create lower-is-better: %v", got)
	}
}

// TestRemadeBoardKeepsMeaning: a board deleted and made again with other
// decimal places never takes a value read in the old unit (12.34 must not
// become 1.234), even from a writer that cached the old definition.
func TestRemadeBoardKeepsMeaning(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Format: board.Format{Type: board.Decimal, Decimals: 2}})
	writer := NewStore(srv.Client(t), WithClock(f.clock.Now))
	units, _ := b.Format.ParseScore("12.34", false)
	if _, err := writer.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Score: units, Unit: b.Format.Unit()}, tester); err != nil {
		t.Fatal(err)
	}
	if err := f.store.DeleteBoard(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	remade, err := f.store.CreateBoard(f.ctx, board.Board{ID: b.ID, Title: "again", Format: board.Format{Type: board.Decimal, Decimals: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if remade.Version <= b.Version {
		t.Fatalf("the remade board repeats version %d", remade.Version)
	}
	units, _ = b.Format.ParseScore("12.34", false) // read with the cached 2-place board
	// The writer's cache still holds the old board: the script refuses its
	// version and the writer finds the unit changed before writing anything.
	_, err = writer.Submit(f.ctx, b.ID, board.Submission{Member: "bob", Score: units}, tester)
	if !errors.Is(err, board.ErrDefinitionChanged) {
		t.Fatalf("a value from a writer with the old definition cached: %v", err)
	}
	// A value that says its unit is checked against the board's own.
	_, err = writer.Submit(f.ctx, b.ID, board.Submission{Member: "bob", Score: units, Unit: b.Format.Unit()}, tester)
	if !errors.Is(err, board.ErrDefinitionChanged) {
		t.Fatalf("a value read in the old unit: %v", err)
	}
	if n, _ := f.rdb.ZCard(f.ctx, ZSetKey(b.ID, board.Period{Kind: board.AllTime})).Result(); n != 0 {
		t.Fatalf("%d members written to the remade board", n)
	}
}

// TestBatchRefusesRepeatedItemKeys: one idempotency key on two items of a
// batch is refused, not applied twice.
func TestBatchRefusesRepeatedItemKeys(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{})
	_, err := f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{{Member: "ann", Score: 5, IdempotencyKey: "k"}, {Member: "ann", Score: 5, IdempotencyKey: "k"}}, board.BatchOptions{By: tester})
	var be *board.BatchError
	if !errors.As(err, &be) || be.Index != 1 || !errors.Is(err, board.ErrIdempotencyReused) {
		t.Fatalf("repeated key: %v", err)
	}
	if n, _ := f.rdb.ZCard(f.ctx, ZSetKey(b.ID, board.Period{Kind: board.AllTime})).Result(); n != 0 {
		t.Fatal("written")
	}
}

// TestVersionsNeverRepeat: a board written before the generation counter
// existed (its version only in the definition) goes on from that version.
func TestVersionsNeverRepeat(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}})
	f.rdb.HSet(f.ctx, defKey(b.ID), "version", 5)
	f.rdb.Del(f.ctx, genKey(b.ID))
	upd := *b
	upd.Title = "after"
	got, err := f.store.UpdateBoard(f.ctx, upd)
	if err != nil || got.Version != 6 {
		t.Fatalf("update of a version-5 board without a counter: version %d, %v", got.Version, err)
	}
	got, _ = f.store.UpdateBoard(f.ctx, upd)
	if got.Version != 7 {
		t.Fatalf("next update: version %d", got.Version)
	}
}
