package board

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func TestBoardCRUD(t *testing.T) {
	f := newFixture(t)
	b := f.board(Board{Title: "Chess", Periods: []Kind{AllTime, Weekly, Daily}, TimeZone: "Europe/Paris"})
	if !slices.Equal(b.Periods, []Kind{Daily, Weekly, AllTime}) || b.DefaultPeriod != AllTime || b.TieBreak != Earliest || b.RankStyle != Competition {
		t.Fatalf("defaults not applied: %+v", b)
	}
	got, err := f.store.Board(f.ctx, b.ID)
	if err != nil || got.Title != "Chess" || got.TimeZone != "Europe/Paris" || got.Location().String() != "Europe/Paris" {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	if _, err := f.store.CreateBoard(f.ctx, Board{ID: b.ID, Title: "again"}); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate create: %v", err)
	}
	got.Title, got.RankStyle, got.Periods = "Chess blitz", Dense, []Kind{Monthly, AllTime}
	if _, err := f.store.UpdateBoard(f.ctx, got); err != nil {
		t.Fatalf("update: %v", err)
	}
	again, _ := f.store.Board(f.ctx, b.ID)
	if again.Title != "Chess blitz" || again.RankStyle != Dense || !slices.Equal(again.Periods, []Kind{Monthly, AllTime}) {
		t.Fatalf("update not kept: %+v", again)
	}
	again.Order, again.TieBreak, again.RankStyle = LowerIsBetter, ByMember, Competition
	_, err = f.store.UpdateBoard(f.ctx, again)
	if !errors.Is(err, ErrImmutable) || len(FieldErrors(err)) != 2 {
		t.Fatalf("immutable fields changed: %v", err)
	}
	list, err := f.store.Boards(f.ctx)
	if err != nil || !slices.ContainsFunc(list, func(x Board) bool { return x.ID == b.ID }) {
		t.Fatalf("list: %v %v", list, err)
	}
	f.submit(b, "ann", 5, Incr)
	if err := f.store.DeleteBoard(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Board(f.ctx, b.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted board still read: %v", err)
	}
	// Only the generation counter stays, so a board made again with this id
	// never repeats a version.
	if n, _ := f.rdb.Keys(f.ctx, tagOf(b.ID)+"*").Result(); len(n) != 1 || n[0] != genKey(b.ID) {
		t.Fatalf("delete left keys: %v", n)
	}
	if err := f.store.DeleteBoard(f.ctx, b.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

func TestBoardValidationNamesTheField(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name  string
		board Board
		field string
	}{
		{"empty id", Board{Title: "x"}, "id"},
		{"id with braces", Board{ID: "a{b}", Title: "x"}, "id"},
		{"upper-case id", Board{ID: "Chess", Title: "x"}, "id"},
		{"no title", Board{ID: "x"}, "title"},
		{"bad zone", Board{ID: "x", Title: "x", TimeZone: "Mars/Olympus"}, "time_zone"},
		{"bad order", Board{ID: "x", Title: "x", Order: "sideways"}, "order"},
		{"bad period", Board{ID: "x", Title: "x", Periods: []Kind{"hour"}}, "periods"},
		{"default not enabled", Board{ID: "x", Title: "x", Periods: []Kind{Daily}, DefaultPeriod: Weekly}, "default_period"},
		{"bad tie-break", Board{ID: "x", Title: "x", TieBreak: "coin"}, "tie_break"},
		{"bad rank style", Board{ID: "x", Title: "x", RankStyle: "olympic"}, "rank_style"},
		{"too many fields", Board{ID: "x", Title: "x", Fields: []Field{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}}, "fields"},
		{"duplicate field", Board{ID: "x", Title: "x", Fields: []Field{{Name: "a"}, {Name: "a"}}}, "fields[1].name"},
		{"decimals out of range", Board{ID: "x", Title: "x", Format: Format{Type: Decimal, Decimals: 9}}, "format.decimals"},
		{"unknown format", Board{ID: "x", Title: "x", Format: Format{Type: "roman"}}, "format.type"},
		{"negative cap", Board{ID: "x", Title: "x", Cap: -1}, "cap"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.store.CreateBoard(f.ctx, tc.board)
			if !errors.Is(err, ErrInvalidBoard) {
				t.Fatalf("got %v, want ErrInvalidBoard", err)
			}
			fes := FieldErrors(err)
			if !slices.ContainsFunc(fes, func(fe *FieldError) bool { return fe.Field == tc.field }) {
				t.Fatalf("errors %v do not name %s", err, tc.field)
			}
			if tc.board.ID != "" {
				if _, err := f.store.Board(f.ctx, tc.board.ID); !errors.Is(err, ErrNotFound) {
					t.Fatalf("invalid board was stored: %v", err)
				}
			}
		})
	}
}

func TestTiedRanksInEachStyle(t *testing.T) {
	scores := map[string]float64{"a": 100, "b": 90, "c": 90, "d": 90, "e": 80, "f": 70, "g": 70}
	order := []string{"a", "b", "c", "d", "e", "f", "g"} // submission order: earliest first
	tests := []struct {
		style RankStyle
		ranks []int
	}{
		{Competition, []int{1, 2, 2, 2, 5, 6, 6}},
		{Dense, []int{1, 2, 2, 2, 3, 4, 4}},
		{Ordinal, []int{1, 2, 3, 4, 5, 6, 7}},
	}
	for _, tc := range tests {
		t.Run(string(tc.style), func(t *testing.T) {
			f := newFixture(t)
			b := f.board(Board{RankStyle: tc.style})
			for _, m := range order {
				f.submit(b, m, scores[m], Set)
			}
			pg := f.page(b, AllTime, 0, 50)
			var got []int
			var members []string
			for _, e := range pg.Entries {
				got = append(got, e.Rank)
				members = append(members, e.Member)
			}
			if !slices.Equal(got, tc.ranks) || !slices.Equal(members, order) {
				t.Fatalf("ranks %v members %v, want %v %v", got, members, tc.ranks, order)
			}
			// Every window agrees with the whole page, wherever it starts in a tie group.
			for off := range order {
				w := f.page(b, AllTime, off, 2)
				for i, e := range w.Entries {
					if e.Rank != tc.ranks[off+i] {
						t.Fatalf("page at %d: row %d rank %d, want %d", off, i, e.Rank, tc.ranks[off+i])
					}
				}
			}
		})
	}
}

func TestTieBreaks(t *testing.T) {
	tests := []struct {
		name   string
		board  Board
		submit []string // members in submission order, all with equal scores
		want   []string
	}{
		{"earliest first, higher is better", Board{TieBreak: Earliest}, []string{"m", "z", "a"}, []string{"m", "z", "a"}},
		{"earliest first, lower is better", Board{TieBreak: Earliest, Order: LowerIsBetter}, []string{"m", "z", "a"}, []string{"m", "z", "a"}},
		{"latest first", Board{TieBreak: Latest}, []string{"m", "z", "a"}, []string{"a", "z", "m"}},
		{"latest first, lower is better", Board{TieBreak: Latest, Order: LowerIsBetter}, []string{"m", "z", "a"}, []string{"a", "z", "m"}},
		{"member order as Redis, higher is better (ZREVRANGE)", Board{TieBreak: ByMember}, []string{"m", "z", "a"}, []string{"z", "m", "a"}},
		{"member order as Redis, lower is better", Board{TieBreak: ByMember, Order: LowerIsBetter}, []string{"m", "z", "a"}, []string{"a", "m", "z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.board.RankStyle = Ordinal
			b := f.board(tc.board)
			for _, m := range tc.submit {
				f.submit(b, m, 42, Set)
			}
			f.submit(b, "top", 50, Set)
			f.submit(b, "bottom", 10, Set)
			if b.Order == LowerIsBetter {
				f.submit(b, "top", 1, Set)
				f.submit(b, "bottom", 99, Set)
			}
			var got []string
			for _, e := range f.page(b, AllTime, 0, 10).Entries {
				got = append(got, e.Member)
			}
			want := append(append([]string{"top"}, tc.want...), "bottom")
			if !slices.Equal(got, want) {
				t.Fatalf("order %v, want %v", got, want)
			}
		})
	}
}

func TestEarliestKeepsTimeWhenScoreUnchanged(t *testing.T) {
	f := newFixture(t)
	b := f.board(Board{RankStyle: Ordinal})
	f.submit(b, "first", 10, Set)
	f.submit(b, "second", 10, Set)
	f.submit(b, "first", 10, Set)  // same score again: still reached it first
	f.submit(b, "second", 5, Best) // worse: ignored
	if got := rows(f.page(b, AllTime, 0, 5)); !slices.Equal(got, []string{"1 first 10", "2 second 10"}) {
		t.Fatalf("%v", got)
	}
	f.submit(b, "first", 11, Set)
	f.submit(b, "first", 10, Set) // reached 10 again, now after second
	if got := rows(f.page(b, AllTime, 0, 5)); !slices.Equal(got, []string{"1 second 10", "2 first 10"}) {
		t.Fatalf("%v", got)
	}
}

func TestExtraSortFields(t *testing.T) {
	for _, style := range []RankStyle{Competition, Dense, Ordinal} {
		t.Run(string(style), func(t *testing.T) {
			f := newFixture(t)
			// clears desc, then revives asc, then first-clear time asc.
			b := f.board(Board{RankStyle: style, Fields: []Field{{Name: "clears", Desc: true}, {Name: "revives"}, {Name: "first_clear"}}})
			subs := []struct {
				m      string
				score  float64
				fields []int64
			}{
				{"a", 100, []int64{5, 2, 1000}},
				{"b", 100, []int64{7, 9, 2000}},
				{"c", 100, []int64{7, 1, 3000}},
				{"d", 100, []int64{5, 2, 1000}}, // tied with a; a was first
				{"e", 120, []int64{0, 0, 0}},
				{"f", 100, []int64{-3, 0, 0}},
				{"g", 100, []int64{5, 2, 999}},
			}
			for _, s := range subs {
				if _, err := f.store.Submit(f.ctx, b.ID, Submission{Member: s.m, Score: s.score, Op: Set, Fields: s.fields}); err != nil {
					t.Fatal(err)
				}
			}
			wantOrder := []string{"e", "c", "b", "g", "a", "d", "f"}
			wantRank := map[RankStyle][]int{
				Competition: {1, 2, 3, 4, 5, 5, 7},
				Dense:       {1, 2, 3, 4, 5, 5, 6},
				Ordinal:     {1, 2, 3, 4, 5, 6, 7},
			}[style]
			pg := f.page(b, AllTime, 0, 10)
			for i, e := range pg.Entries {
				if e.Member != wantOrder[i] || e.Rank != wantRank[i] {
					t.Fatalf("row %d: %s rank %d, want %s rank %d (%v)", i, e.Member, e.Rank, wantOrder[i], wantRank[i], rows(pg))
				}
			}
			if !slices.Equal(pg.Entries[1].Fields, []int64{7, 1, 3000}) {
				t.Fatalf("fields not decoded: %v", pg.Entries[1].Fields)
			}
			// A window that starts inside the a/d tie group still ranks d as 5th.
			w := f.page(b, AllTime, 5, 2)
			if w.Entries[0].Member != "d" || w.Entries[0].Rank != wantRank[5] || w.Entries[1].Rank != wantRank[6] {
				t.Fatalf("window at 5: %v", rows(w))
			}
			// Omitting fields keeps the member's own.
			f.submit(b, "f", 1, Incr)
			st, _ := f.store.Ranks(f.ctx, b, b.Current(AllTime, f.clock.Now()), []string{"f"})
			if st[0].Score != 101 || st[0].Rank != 2 {
				t.Fatalf("f after incr: %+v", st[0])
			}
		})
	}
}

func TestOperatorsAndBeforeAfter(t *testing.T) {
	f := newFixture(t)
	b := f.board(Board{Periods: []Kind{Daily, Weekly, AllTime}})
	f.submit(b, "a", 50, Set)
	f.submit(b, "b", 40, Set)
	f.submit(b, "c", 30, Set)
	r := f.submit(b, "c", 25, Incr)
	c, ok := r.Change(AllTime)
	if !ok || c.Before != (Place{true, 30, 3}) || c.After != (Place{true, 55, 1}) {
		t.Fatalf("incr change: %+v", c)
	}
	if len(r.Changes) != 3 || r.Changes[0].Period.Kind != Daily || r.Changes[0].Period.Key != "2026-11-22" {
		t.Fatalf("changes per period: %+v", r.Changes)
	}
	r = f.submit(b, "c", 20, Decr)
	if c, _ := r.Change(Weekly); c.After != (Place{true, 35, 3}) {
		t.Fatalf("decr: %+v", c)
	}
	r = f.submit(b, "c", 10, Best)
	if c, _ := r.Change(Daily); c.After != (Place{true, 35, 3}) || c.Before != c.After {
		t.Fatalf("best with a worse value changed the score: %+v", c)
	}
	r = f.submit(b, "c", 45, Best)
	if c, _ := r.Change(Daily); c.After != (Place{true, 45, 2}) {
		t.Fatalf("best with a better value: %+v", c)
	}
	r = f.submit(b, "new", 5, Decr)
	if c, _ := r.Change(AllTime); c.Before.Ranked || c.After != (Place{true, -5, 4}) {
		t.Fatalf("decr of a new member: %+v", c)
	}
	lower := f.board(Board{ID: testBoardID(t) + "-low", Order: LowerIsBetter})
	f.submit(lower, "x", 9.0, Set)
	f.submit(lower, "x", 12, Best)
	f.submit(lower, "x", 7, Best)
	if got := rows(f.page(lower, AllTime, 0, 5)); !slices.Equal(got, []string{"1 x 7"}) {
		t.Fatalf("best on lower-is-better: %v", got)
	}
}

func TestPrecision(t *testing.T) {
	f := newFixture(t)
	ints := f.board(Board{ID: testBoardID(t) + "-int"})
	for _, v := range []float64{MaxExact, -MaxExact, 0, 1, MaxExact - 1} {
		f.submit(ints, "m"+ftoa(v), v, Set)
	}
	f.submit(ints, "negzero", math.Copysign(0, -1), Set)
	pg := f.page(ints, AllTime, 0, 10)
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
	for _, v := range []float64{MaxExact + 2, 1e300, math.Inf(1), math.NaN(), 0.5} {
		_, err := f.store.Submit(f.ctx, ints.ID, Submission{Member: "bad", Score: v, Op: Set})
		if !errors.Is(err, ErrInvalidScore) {
			t.Fatalf("%v accepted: %v", v, err)
		}
	}
	_, err := f.store.Submit(f.ctx, ints.ID, Submission{Member: "m9007199254740992", Score: 1, Op: Incr})
	if !errors.Is(err, ErrInvalidScore) || !strings.Contains(err.Error(), "9007199254740993") {
		t.Fatalf("overflowing incr: %v", err)
	}
	if got := rows(f.page(ints, AllTime, 0, 1)); got[0] != want[0] {
		t.Fatalf("refused incr wrote: %v", got)
	}
	// Decimal boards keep whole units of 10^-places: 0.10 + 0.20 is exactly 0.30.
	dec := f.board(Board{ID: testBoardID(t) + "-dec", Format: Format{Type: Decimal, Decimals: 2, Prefix: "$"}, RankStyle: Dense})
	f.submit(dec, "sum", 10, Incr)
	f.submit(dec, "sum", 20, Incr)
	f.submit(dec, "set", 30, Set)
	pg = f.page(dec, AllTime, 0, 5)
	if got := rows(pg); !slices.Equal(got, []string{"1 sum 30", "1 set 30"}) {
		t.Fatalf("0.1+0.2 must tie with 0.3 on a 2-decimal board: %v", got)
	}
	if got := dec.Format.Display(pg.Entries[0].Score); got != "$0.30" {
		t.Fatalf("display %q", got)
	}
	if _, err := f.store.Submit(f.ctx, dec.ID, Submission{Member: "x", Score: 12.5, Op: Set}); !errors.Is(err, ErrInvalidScore) {
		t.Fatalf("three decimals on a two-decimal board: %v", err)
	}
	// The largest value a 2-place board keeps comes back exactly, and one
	// more cent is refused with the exact result in the message.
	top, _ := dec.Format.ParseScore("90071992547409.92", false) // 2^53 units
	f.submit(dec, "top", top, Set)
	if st, _ := f.store.Ranks(f.ctx, dec, dec.Current(AllTime, f.clock.Now()), []string{"top"}); dec.Format.Display(st[0].Score) != "$90,071,992,547,409.92" {
		t.Fatalf("edge value shown as %s", dec.Format.Display(st[0].Score))
	}
	_, err = f.store.Submit(f.ctx, dec.ID, Submission{Member: "top", Score: 1, Op: Incr})
	if !errors.Is(err, ErrInvalidScore) || !strings.Contains(err.Error(), "90071992547409.93") {
		t.Fatalf("one cent past the edge: %v", err)
	}
	// Ties at equal floats: two members reaching 1e15 by different paths tie.
	f.submit(ints, "p1", 1e15, Set)
	f.submit(ints, "p2", 1e15-7, Set)
	f.submit(ints, "p2", 7, Incr)
	st, _ := f.store.Ranks(f.ctx, ints, ints.Current(AllTime, f.clock.Now()), []string{"p1", "p2"})
	if st[0].Rank != st[1].Rank || st[0].Score != 1e15 {
		t.Fatalf("equal floats not tied: %+v", st)
	}
}

func TestBadInputWritesNothing(t *testing.T) {
	f := newFixture(t)
	b := f.board(Board{Fields: []Field{{Name: "lives"}}})
	f.submit(b, "ann", 5, Incr)
	before := dumpBoard(t, f, b.ID)
	bad := []struct {
		name string
		sub  Submission
		is   error
	}{
		{"empty member", Submission{Score: 1}, ErrInvalidMember},
		{"long member", Submission{Member: strings.Repeat("x", MaxMemberLen+1), Score: 1}, ErrInvalidMember},
		{"control character", Submission{Member: "a\nb", Score: 1}, ErrInvalidMember},
		{"invalid utf-8", Submission{Member: "a\xffb", Score: 1}, ErrInvalidMember},
		{"NaN", Submission{Member: "x", Score: math.NaN()}, ErrInvalidScore},
		{"infinity", Submission{Member: "x", Score: math.Inf(-1)}, ErrInvalidScore},
		{"too big", Submission{Member: "x", Score: 1e300, Op: Set}, ErrInvalidScore},
		{"negative incr", Submission{Member: "x", Score: -1}, ErrInvalidScore},
		{"unknown op", Submission{Member: "x", Score: 1, Op: "mul"}, ErrInvalidInput},
		{"wrong field count", Submission{Member: "x", Score: 1, Fields: []int64{1, 2}}, ErrInvalidInput},
		{"bad name", Submission{Member: "x", Score: 1, Name: "a\x00"}, ErrInvalidInput},
		{"bad idempotency key", Submission{Member: "x", Score: 1, IdempotencyKey: "has space"}, ErrInvalidInput},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.store.Submit(f.ctx, b.ID, tc.sub)
			if !errors.Is(err, tc.is) {
				t.Fatalf("got %v, want %v", err, tc.is)
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("error %v names no field", err)
			}
		})
	}
	if _, err := f.store.Submit(f.ctx, "no-such-board", Submission{Member: "x", Score: 1}); !errors.Is(err, ErrNotFound) {
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
	b := f.board(Board{})
	sub := Submission{Member: "ann", Score: 10, IdempotencyKey: "req-1"}
	first, err := f.store.Submit(f.ctx, b.ID, sub)
	if err != nil || first.Replayed {
		t.Fatal(first, err)
	}
	var wg sync.WaitGroup
	for range 20 { // a client retrying in a storm after timeouts
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := f.store.Submit(context.Background(), b.ID, sub)
			if err != nil || !r.Replayed || r.Changes[0].After != first.Changes[0].After {
				t.Errorf("retry: %+v %v", r, err)
			}
		}()
	}
	wg.Wait()
	sub.IdempotencyKey = "req-2"
	f.store.Submit(f.ctx, b.ID, sub)
	if got := rows(f.page(b, AllTime, 0, 5)); !slices.Equal(got, []string{"1 ann 20"}) {
		t.Fatalf("retries applied more than once: %v", got)
	}
	if ttl, _ := f.rdb.TTL(f.ctx, idemKey(b.ID, "req-1")).Result(); ttl <= 0 || ttl > DefaultIdemTTL {
		t.Fatalf("idempotency key ttl %v", ttl)
	}
}

func TestConcurrentSubmissionsLoseNothing(t *testing.T) {
	f := newFixture(t)
	b := f.board(Board{Periods: []Kind{Daily, AllTime}})
	const workers, each = 16, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				m := fmt.Sprintf("m%d", (w+i)%7)
				if _, err := f.store.Submit(context.Background(), b.ID, Submission{Member: m, Score: 1}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, k := range []Kind{Daily, AllTime} {
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
	b := f.board(Board{Periods: Kinds, TimeZone: "Asia/Tokyo"})
	f.clock.Set(time.Date(2026, 12, 31, 14, 30, 0, 0, time.UTC)) // 23:30 in Tokyo
	f.submit(b, "ann", 10, Incr)
	f.clock.Set(time.Date(2026, 12, 31, 15, 30, 0, 0, time.UTC)) // 00:30 on 1 January in Tokyo
	f.submit(b, "ann", 5, Incr)
	tokyo := b.Location()
	want := map[string]float64{
		"day:2026-12-31": 10, "day:2027-01-01": 5,
		"week:2026-W53": 15, "month:2026-12": 10, "month:2027-01": 5,
		"year:2026": 10, "year:2027": 5, "all": 15,
	}
	for label, score := range want {
		p, err := parseLabel(label, tokyo)
		if err != nil {
			t.Fatal(err)
		}
		pg, err := f.store.Page(f.ctx, b, p, 0, 5)
		if err != nil || len(pg.Entries) != 1 || pg.Entries[0].Score != score {
			t.Fatalf("%s: %v %v, want %v", label, rows(pg), err, score)
		}
	}
	sts, err := f.store.Member(f.ctx, b, "ann")
	if err != nil || len(sts) != 5 || sts[0].Period.Key != "2027-01-01" || sts[1].Period.Key != "2026-W53" || sts[1].Score != 15 {
		t.Fatalf("member standing: %+v %v", sts, err)
	}
}

func TestRemoveResetRename(t *testing.T) {
	f := newFixture(t)
	b := f.board(Board{Periods: []Kind{Daily, AllTime}, RankStyle: Dense})
	f.submit(b, "ann", 10, Set)
	f.submit(b, "bob", 10, Set)
	f.submit(b, "cat", 5, Set)
	today := b.Current(Daily, f.clock.Now())
	removed, err := f.store.RemoveMember(f.ctx, b.ID, "bob", &today)
	if err != nil || len(removed) != 1 || removed[0].Score != 10 || removed[0].Period.Key != today.Key {
		t.Fatalf("remove from today: %+v %v", removed, err)
	}
	if got := rows(f.page(b, Daily, 0, 5)); !slices.Equal(got, []string{"1 ann 10", "2 cat 5"}) {
		t.Fatalf("today after remove: %v", got)
	}
	if got := rows(f.page(b, AllTime, 0, 5)); !slices.Equal(got, []string{"1 ann 10", "1 bob 10", "2 cat 5"}) {
		t.Fatalf("all time after removing from today only: %v", got)
	}
	if _, err := f.store.SetName(f.ctx, b.ID, "ann", "Ann Lee"); err != nil {
		t.Fatal(err)
	}
	removed, err = f.store.RemoveMember(f.ctx, b.ID, "ann", nil)
	if err != nil || len(removed) != 2 {
		t.Fatalf("remove from all: %+v %v", removed, err)
	}
	if got := rows(f.page(b, AllTime, 0, 5)); !slices.Equal(got, []string{"1 bob 10", "2 cat 5"}) {
		t.Fatalf("all time after removing everywhere: %v", got)
	}
	if found, _, _ := f.store.Search(f.ctx, b, b.Current(AllTime, f.clock.Now()), "ann", 5); len(found) != 0 {
		t.Fatalf("removed member still found by name: %v", found)
	}
	n, err := f.store.ResetPeriod(f.ctx, b.ID, today)
	if err != nil || n != 1 {
		t.Fatalf("reset: %d %v", n, err)
	}
	if pg := f.page(b, Daily, 0, 5); pg.Total != 0 || len(pg.Entries) != 0 {
		t.Fatalf("reset left %v", rows(pg))
	}
	if got := rows(f.page(b, AllTime, 0, 5)); len(got) != 2 {
		t.Fatalf("reset of today touched all time: %v", got)
	}
	if _, err := f.store.SetName(f.ctx, b.ID, "cat", strings.Repeat("x", MaxNameLen+1)); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("long name: %v", err)
	}
	if _, err := f.store.SetName(f.ctx, "nope", "cat", "Cat"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rename on unknown board: %v", err)
	}
}

func TestSearchByNamePrefix(t *testing.T) {
	f := newFixture(t)
	b := f.board(Board{Periods: []Kind{Daily, AllTime}})
	for i, n := range []string{"Alice", "alfred", "Bob", "ALBERT", "Zoë"} {
		if _, err := f.store.Submit(f.ctx, b.ID, Submission{Member: fmt.Sprintf("id%d", i), Name: n, Score: float64(10 * (i + 1)), Op: Set}); err != nil {
			t.Fatal(err)
		}
	}
	f.submit(b, "alpha-no-name", 1, Set) // unnamed members are found by id
	all := b.Current(AllTime, f.clock.Now())
	found, complete, err := f.store.Search(f.ctx, b, all, "AL", 10)
	if err != nil || !complete {
		t.Fatal(err, complete)
	}
	var names []string
	for _, e := range found {
		names = append(names, fmt.Sprintf("%d %s", e.Rank, e.Name))
	}
	if want := []string{"2 ALBERT", "4 alfred", "5 Alice", "6 alpha-no-name"}; !slices.Equal(names, want) {
		t.Fatalf("search al: %v, want %v", names, want)
	}
	if found, _, _ := f.store.Search(f.ctx, b, all, "zoe", 10); len(found) != 0 {
		t.Fatalf("zoe matched %v (names are compared as written, lower-cased; ë is not e)", found)
	}
	if found, _, _ := f.store.Search(f.ctx, b, all, "zoë", 10); len(found) != 1 {
		t.Fatalf("zoë: %v", found)
	}
	if _, err := f.store.SetName(f.ctx, b.ID, "id0", "Xena"); err != nil {
		t.Fatal(err)
	}
	found, _, _ = f.store.Search(f.ctx, b, all, "ali", 10)
	if len(found) != 0 {
		t.Fatalf("old name still indexed: %v", found)
	}
	if found, _, _ = f.store.Search(f.ctx, b, all, "xe", 10); len(found) != 1 || found[0].Name != "Xena" {
		t.Fatalf("new name: %v", found)
	}
	if _, _, err := f.store.Search(f.ctx, b, all, " ", 10); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("blank query: %v", err)
	}
}

func TestAroundPageOfRangesPercentile(t *testing.T) {
	f := newFixture(t)
	b := f.board(Board{})
	for i := 1; i <= 20; i++ { // m01 100 ... m20 5, with m10/m11 tied
		score := float64(105 - 5*i)
		if i == 11 {
			score = 55
		}
		f.submit(b, fmt.Sprintf("m%02d", i), score, Set)
	}
	all := b.Current(AllTime, f.clock.Now())
	tests := []struct {
		member string
		k      int
		first  string
		pos    int
	}{
		{"m10", 2, "m08", 9},
		{"m01", 2, "m01", 0}, // top: window slides down
		{"m20", 2, "m16", 19},
		{"m19", 3, "m14", 18},
	}
	for _, tc := range tests {
		pg, pos, err := f.store.Around(f.ctx, b, all, tc.member, tc.k)
		if err != nil || len(pg.Entries) != 2*tc.k+1 || pg.Entries[0].Member != tc.first || pos != tc.pos {
			t.Fatalf("around %s: %v pos %d %v", tc.member, rows(pg), pos, err)
		}
	}
	pg, _, _ := f.store.Around(f.ctx, b, all, "m11", 1)
	if got := rows(pg); !slices.Equal(got, []string{"10 m10 55", "10 m11 55", "12 m12 45"}) {
		t.Fatalf("around a tie: %v", got)
	}
	if _, _, err := f.store.Around(f.ctx, b, all, "ghost", 2); !errors.Is(err, ErrNotFound) {
		t.Fatalf("around a missing member: %v", err)
	}
	if p, err := f.store.PageOf(f.ctx, b, all, "m11", 5); err != nil || p != 3 {
		t.Fatalf("page of m11 at 5 a page: %d %v", p, err)
	}
	if n, _ := f.store.CountRange(f.ctx, b, all, 50, 80); n != 7 {
		t.Fatalf("count 50..80 = %d", n)
	}
	rg, err := f.store.RangeByScore(f.ctx, b, all, 50, 80, 1, 3)
	if got := rows(rg); err != nil || rg.Matched != 7 || !slices.Equal(got, []string{"6 m06 75", "7 m07 70", "8 m08 65"}) {
		t.Fatalf("range: %v matched %d %v", got, rg.Matched, err)
	}
	sts, _ := f.store.Ranks(f.ctx, b, all, []string{"m01", "m10", "m20", "ghost"})
	if sts[0].Percentile() != 100 || sts[2].Percentile() != 0 || sts[3].Ranked {
		t.Fatalf("percentiles: %+v", sts)
	}
	if p := sts[1].Percentile(); p != 100*9.0/19 {
		t.Fatalf("m10 (tied with m11, 9 below) percentile %v", p)
	}
	if total, _ := f.store.Total(f.ctx, b, all); total != 20 {
		t.Fatalf("total %d", total)
	}
}

func TestSizeCap(t *testing.T) {
	f := newFixture(t)
	b := f.board(Board{Cap: 3, Periods: []Kind{Daily, AllTime}})
	for i, s := range []float64{50, 10, 40, 30, 60} {
		f.submit(b, fmt.Sprintf("m%d", i), s, Set)
	}
	if got := rows(f.page(b, AllTime, 0, 10)); !slices.Equal(got, []string{"1 m4 60", "2 m0 50", "3 m2 40"}) {
		t.Fatalf("capped: %v", got)
	}
	r := f.submit(b, "late", 5, Set)
	if c, _ := r.Change(AllTime); c.After.Ranked {
		t.Fatalf("a score below the cap is reported ranked: %+v", c)
	}
	if n, _ := f.rdb.HLen(f.ctx, entriesKey(ZSetKey(b.ID, b.Current(AllTime, f.clock.Now())))).Result(); n != 3 {
		t.Fatalf("trimmed members left in the entry hash: %d", n)
	}
}

// TestOutsideWriters covers boards that a game server writes with ZINCRBY:
// member tie-break boards, with competition or ordinal ranks, right after any
// plain write; dense ranks on them are refused.
func TestOutsideWriters(t *testing.T) {
	f := newFixture(t)
	if _, err := f.store.CreateBoard(f.ctx, Board{ID: testBoardID(t) + "-dense", Title: "x", TieBreak: ByMember, RankStyle: Dense}); !errors.Is(err, ErrInvalidBoard) {
		t.Fatalf("member tie-break with dense ranks: %v", err)
	}
	b := f.board(Board{TieBreak: ByMember})
	all := b.Current(AllTime, f.clock.Now())
	z := ZSetKey(b.ID, all)
	f.submit(b, "ann", 10, Set)
	for _, m := range []string{"bob", "cat", "dan"} {
		f.rdb.ZIncrBy(f.ctx, z, 7, m)
	}
	f.rdb.ZIncrBy(f.ctx, z, 3, "ann")
	if got := rows(f.page(b, AllTime, 0, 10)); !slices.Equal(got, []string{"1 ann 13", "2 dan 7", "2 cat 7", "2 bob 7"}) {
		t.Fatalf("competition after outside writes: %v", got)
	}
	b.RankStyle = Ordinal
	if got := rows(f.page(b, AllTime, 0, 10)); !slices.Equal(got, []string{"1 ann 13", "2 dan 7", "3 cat 7", "4 bob 7"}) {
		t.Fatalf("ordinal after outside writes: %v", got)
	}
}

func TestDisplay(t *testing.T) {
	tests := []struct {
		f    Format
		v    float64
		want string
	}{
		{Format{Type: Integer}, 1234567, "1,234,567"},
		{Format{Type: Integer}, -1000, "-1,000"},
		{Format{Type: Integer, Suffix: " pts"}, 12, "12 pts"},
		{Format{Type: Decimal, Decimals: 2, Prefix: "$"}, 123450, "$1,234.50"}, // units of 0.01
		{Format{Type: Decimal, Decimals: 2}, -5, "-0.05"},
		{Format{Type: Decimal, Decimals: 3}, 0, "0.000"},
		{Format{Type: Decimal, Decimals: 2}, 12.5, "0.125"}, // an outside writer's fraction of a unit: shown in full
		{Format{Type: Duration}, 9580, "0:09.580"},
		{Format{Type: Duration}, 125_007, "2:05.007"},
		{Format{Type: Duration}, 3_723_004, "1:02:03.004"},
		{Format{Type: Duration}, 1.5, "0:00.0015"},
	}
	for _, tc := range tests {
		if got := tc.f.Display(tc.v); got != tc.want {
			t.Errorf("%+v.Display(%v) = %q, want %q", tc.f, tc.v, got, tc.want)
		}
	}
}

func TestRecentChangesAndWriteHook(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var written []string
	f.store = NewStore(f.rdb, WithClock(f.clock.Now), WithRecentLen(3), WithWriteHook(func(_ context.Context, keys ...string) {
		mu.Lock()
		written = append(written, keys...)
		mu.Unlock()
	}))
	b := f.board(Board{Periods: []Kind{Weekly, AllTime}})
	for i := range 5 {
		if _, err := f.store.Submit(f.ctx, b.ID, Submission{Member: fmt.Sprintf("p%d", i), Name: fmt.Sprintf("Player %d", i), Score: float64(i + 1), Op: Set}); err != nil {
			t.Fatal(err)
		}
	}
	acts, err := f.store.Recent(f.ctx, b, 10)
	if err != nil || len(acts) != 3 {
		t.Fatalf("recent: %d entries, %v (capped at 3)", len(acts), err)
	}
	a := acts[0]
	if a.Member != "p4" || a.Name != "Player 4" || a.Op != Set || a.Value != 5 || len(a.Changes) != 2 || a.Changes[1].After != (Place{true, 5, 1}) {
		t.Fatalf("newest change: %+v", a)
	}
	if !a.Time.After(acts[1].Time) {
		t.Fatalf("not newest first: %v then %v", a.Time, acts[1].Time)
	}
	week := ZSetKey(b.ID, b.Current(Weekly, f.clock.Now()))
	if len(written) != 10 || written[0] != week {
		t.Fatalf("write hook saw %v", written)
	}
}

func TestBoardParsePeriod(t *testing.T) {
	b := &Board{ID: "x", Title: "x", Periods: []Kind{Weekly, AllTime}, DefaultPeriod: Weekly, TimeZone: "America/New_York"}
	b.Normalize()
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC) // Sunday evening in New York
	p, err := b.ParsePeriod("", "", now)
	if err != nil || p.Key != "2026-W47" {
		t.Fatalf("default period: %+v %v", p, err)
	}
	if p, err = b.ParsePeriod("week", "2021-W01", now); err != nil || p.Start.Format(time.RFC3339) != "2021-01-04T00:00:00-05:00" {
		t.Fatalf("past week: %+v %v", p, err)
	}
	if _, err := b.ParsePeriod("day", "", now); !errors.Is(err, ErrPeriodDisabled) {
		t.Fatalf("disabled kind: %v", err)
	}
	if _, err := b.ParsePeriod("week", "2021-W99", now); !errors.Is(err, ErrInvalidPeriod) {
		t.Fatalf("bad key: %v", err)
	}
	if _, err := b.ParsePeriod("fortnight", "", now); !errors.Is(err, ErrInvalidPeriod) {
		t.Fatalf("bad kind: %v", err)
	}
}

func TestParseZSetKey(t *testing.T) {
	tests := []struct {
		key  string
		id   string
		kind Kind
		pk   string
		ok   bool
	}{
		{"lb:{chess}:all", "chess", AllTime, "", true},
		{"lb:{chess}:w:2026-W47", "chess", Weekly, "2026-W47", true},
		{"lb:{chess}:d:2026-11-22", "chess", Daily, "2026-11-22", true},
		{"lb:{chess}:w:2026-W47:e", "", "", "", false},
		{"lb:{chess}:def", "", "", "", false},
		{"lb:{chess}:names", "", "", "", false},
		{"lb:boards", "", "", "", false},
		{"other:{chess}:all", "", "", "", false},
	}
	for _, tc := range tests {
		id, k, pk, ok := ParseZSetKey(tc.key)
		if id != tc.id || k != tc.kind || pk != tc.pk || ok != tc.ok {
			t.Errorf("ParseZSetKey(%q) = %q %q %q %v", tc.key, id, k, pk, ok)
		}
	}
	if id, ok := ParseNamesKey(namesKey("chess")); !ok || id != "chess" {
		t.Errorf("ParseNamesKey(%q) = %q %v", namesKey("chess"), id, ok)
	}
	for _, k := range []string{"lb:{chess}:names:idx", "lb:{chess}:all", "lb:boards", "lb:{}:names"} {
		if _, ok := ParseNamesKey(k); ok {
			t.Errorf("ParseNamesKey(%q) accepted", k)
		}
	}
	p := PeriodAt(Monthly, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.UTC)
	if id, k, pk, ok := ParseZSetKey(ZSetKey("a-b", p)); id != "a-b" || k != Monthly || pk != "2026-11" || !ok {
		t.Errorf("round trip of %s", ZSetKey("a-b", p))
	}
}

func TestSubmitBatch(t *testing.T) {
	f := newFixture(t)
	b := f.board(Board{Periods: []Kind{Daily, AllTime}})
	f.submit(b, "big", MaxExact-1, Set)
	before := dumpBoard(t, f, b.ID)
	// A later item that would overflow refuses the whole batch.
	_, err := f.store.SubmitBatch(f.ctx, b.ID, []Submission{
		{Member: "ann", Score: 5},
		{Member: "big", Score: 1},
		{Member: "big", Score: 1}, // 2^53 + 1 only with the item before it
	}, "")
	var be *BatchError
	if !errors.As(err, &be) || be.Index != 2 || !errors.Is(err, ErrInvalidScore) {
		t.Fatalf("overflow in item 2: %v", err)
	}
	// So does an invalid item, before Redis is asked.
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, []Submission{{Member: "ann", Score: 5}, {Member: "", Score: 1}}, ""); !errors.As(err, &be) || be.Index != 1 {
		t.Fatalf("invalid item 1: %v", err)
	}
	if after := dumpBoard(t, f, b.ID); !maps2Equal(before, after) {
		t.Fatal("a refused batch wrote")
	}
	// Items apply in order; later ones see earlier ones; each reports its ranks.
	res, err := f.store.SubmitBatch(f.ctx, b.ID, []Submission{
		{Member: "ann", Score: 10, Name: "Ann"},
		{Member: "bob", Score: 20},
		{Member: "ann", Score: 15, IdempotencyKey: "ann-bonus"},
	}, "batch-1")
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := res[2].Change(AllTime); c.Before != (Place{true, 10, 3}) || c.After != (Place{true, 25, 2}) {
		t.Fatalf("third item: %+v", c)
	}
	// The same batch again is a replay, applied once.
	again, err := f.store.SubmitBatch(f.ctx, b.ID, []Submission{
		{Member: "ann", Score: 10, Name: "Ann"},
		{Member: "bob", Score: 20},
		{Member: "ann", Score: 15, IdempotencyKey: "ann-bonus"},
	}, "batch-1")
	if err != nil || !again[0].Replayed || again[2].Changes[1].After != res[2].Changes[1].After {
		t.Fatalf("replayed batch: %+v %v", again, err)
	}
	// The key with another batch is refused, and nothing is written.
	before = dumpBoard(t, f, b.ID)
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, []Submission{{Member: "ann", Score: 10}, {Member: "bob", Score: 20}}, "batch-1"); !errors.Is(err, ErrIdempotencyReused) {
		t.Fatalf("batch key reused: %v", err)
	}
	// So is an item key with another item, naming the item.
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, []Submission{{Member: "cat", Score: 1}, {Member: "ann", Score: 16, IdempotencyKey: "ann-bonus"}}, ""); !errors.As(err, &be) || be.Index != 1 || !errors.Is(err, ErrIdempotencyReused) {
		t.Fatalf("item key reused: %v", err)
	}
	if after := dumpBoard(t, f, b.ID); !maps2Equal(before, after) {
		t.Fatal("a reused key wrote")
	}
	// An item whose own key was used is skipped inside a new batch.
	mixed, err := f.store.SubmitBatch(f.ctx, b.ID, []Submission{{Member: "ann", Score: 15, IdempotencyKey: "ann-bonus"}, {Member: "cat", Score: 1}}, "")
	if err != nil || !mixed[0].Replayed || mixed[1].Replayed {
		t.Fatalf("mixed batch: %+v %v", mixed, err)
	}
	if got := rows(f.page(b, AllTime, 0, 5)); !slices.Equal(got, []string{"1 big 9007199254740991", "2 ann 25", "3 bob 20", "4 cat 1"}) {
		t.Fatalf("after batches: %v", got)
	}
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, make([]Submission, MaxBatch+1), ""); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("oversized batch: %v", err)
	}
}
