package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"podium/board"
)

func TestRemoveResetRename(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}, RankStyle: board.Dense})
	f.submit(b, "ann", 10, board.Set)
	f.submit(b, "bob", 10, board.Set)
	f.submit(b, "cat", 5, board.Set)
	today := b.Current(board.Daily, f.clock.Now())
	removed, err := f.store.RemoveMember(f.ctx, b.ID, "bob", &today, tester)
	if err != nil || len(removed) != 1 || removed[0].Score != 10 || removed[0].Period.Key != today.Key {
		t.Fatalf("remove from today: %+v %v", removed, err)
	}
	if got := rows(f.page(b, board.Daily, 0, 5)); !slices.Equal(got, []string{"1 ann 10", "2 cat 5"}) {
		t.Fatalf("today after remove: %v", got)
	}
	if got := rows(f.page(b, board.AllTime, 0, 5)); !slices.Equal(got, []string{"1 ann 10", "1 bob 10", "2 cat 5"}) {
		t.Fatalf("all time after removing from today only: %v", got)
	}
	if _, err := f.store.SetName(f.ctx, b.ID, "ann", "Ann Lee", tester); err != nil {
		t.Fatal(err)
	}
	removed, err = f.store.RemoveMember(f.ctx, b.ID, "ann", nil, tester)
	if err != nil || len(removed) != 2 {
		t.Fatalf("remove from all: %+v %v", removed, err)
	}
	if got := rows(f.page(b, board.AllTime, 0, 5)); !slices.Equal(got, []string{"1 bob 10", "2 cat 5"}) {
		t.Fatalf("all time after removing everywhere: %v", got)
	}
	if found, _, _ := f.store.Search(f.ctx, b, b.Current(board.AllTime, f.clock.Now()), "ann", 5); len(found) != 0 {
		t.Fatalf("removed member still found by name: %v", found)
	}
	n, err := f.store.ResetPeriod(f.ctx, b.ID, today, tester)
	if err != nil || n != 1 {
		t.Fatalf("reset: %d %v", n, err)
	}
	if pg := f.page(b, board.Daily, 0, 5); pg.Total != 0 || len(pg.Entries) != 0 {
		t.Fatalf("reset left %v", rows(pg))
	}
	if got := rows(f.page(b, board.AllTime, 0, 5)); len(got) != 2 {
		t.Fatalf("reset of today touched all time: %v", got)
	}
	if _, err := f.store.SetName(f.ctx, b.ID, "cat", strings.Repeat("x", board.MaxNameLen+1), tester); !errors.Is(err, board.ErrInvalidInput) {
		t.Fatalf("long name: %v", err)
	}
	if _, err := f.store.SetName(f.ctx, "nope", "cat", "Cat", tester); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("rename on unknown board: %v", err)
	}
}

func TestSearchByNamePrefix(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}})
	for i, n := range []string{"Alice", "alfred", "Bob", "ALBERT", "Zoë"} {
		if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: fmt.Sprintf("id%d", i), Name: n, Score: float64(10 * (i + 1)), Op: board.Set}, tester); err != nil {
			t.Fatal(err)
		}
	}
	f.submit(b, "alpha-no-name", 1, board.Set) // unnamed members are found by id
	all := b.Current(board.AllTime, f.clock.Now())
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
	if _, err := f.store.SetName(f.ctx, b.ID, "id0", "Xena", tester); err != nil {
		t.Fatal(err)
	}
	found, _, _ = f.store.Search(f.ctx, b, all, "ali", 10)
	if len(found) != 0 {
		t.Fatalf("old name still indexed: %v", found)
	}
	if found, _, _ = f.store.Search(f.ctx, b, all, "xe", 10); len(found) != 1 || found[0].Name != "Xena" {
		t.Fatalf("new name: %v", found)
	}
	if _, _, err := f.store.Search(f.ctx, b, all, " ", 10); !errors.Is(err, board.ErrInvalidInput) {
		t.Fatalf("blank query: %v", err)
	}
}

func TestAroundPageOfRangesPercentile(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{})
	for i := 1; i <= 20; i++ { // m01 100 ... m20 5, with m10/m11 tied
		score := float64(105 - 5*i)
		if i == 11 {
			score = 55
		}
		f.submit(b, fmt.Sprintf("m%02d", i), score, board.Set)
	}
	all := b.Current(board.AllTime, f.clock.Now())
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
	if _, _, err := f.store.Around(f.ctx, b, all, "ghost", 2); !errors.Is(err, board.ErrNotFound) {
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

func TestDisplay(t *testing.T) {
	tests := []struct {
		f    board.Format
		v    float64
		want string
	}{
		{board.Format{Type: board.Integer}, 1234567, "1,234,567"},
		{board.Format{Type: board.Integer}, -1000, "-1,000"},
		{board.Format{Type: board.Integer, Suffix: " pts"}, 12, "12 pts"},
		{board.Format{Type: board.Decimal, Decimals: 2, Prefix: "$"}, 123450, "$1,234.50"}, // units of 0.01
		{board.Format{Type: board.Decimal, Decimals: 2}, -5, "-0.05"},
		{board.Format{Type: board.Decimal, Decimals: 3}, 0, "0.000"},
		{board.Format{Type: board.Decimal, Decimals: 2}, 12.5, "0.125"}, // an outside writer's fraction of a unit: shown in full
		{board.Format{Type: board.Duration}, 9580, "0:09.580"},
		{board.Format{Type: board.Duration}, 125_007, "2:05.007"},
		{board.Format{Type: board.Duration}, 3_723_004, "1:02:03.004"},
		{board.Format{Type: board.Duration}, 1.5, "0:00.0015"},
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
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime}})
	for i := range 5 {
		if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: fmt.Sprintf("p%d", i), Name: fmt.Sprintf("Player %d", i), Score: float64(i + 1), Op: board.Set}, tester); err != nil {
			t.Fatal(err)
		}
	}
	acts, err := f.store.Recent(f.ctx, b, 10)
	if err != nil || len(acts) != 3 {
		t.Fatalf("recent: %d entries, %v (capped at 3)", len(acts), err)
	}
	a := acts[0]
	if a.Member != "p4" || a.Name != "Player 4" || a.Op != board.Set || a.Value != 5 || len(a.Changes) != 2 || a.Changes[1].After != (board.Place{Ranked: true, Score: 5, Rank: 1}) {
		t.Fatalf("newest change: %+v", a)
	}
	if !a.Time.After(acts[1].Time) {
		t.Fatalf("not newest first: %v then %v", a.Time, acts[1].Time)
	}
	week := ZSetKey(b.ID, b.Current(board.Weekly, f.clock.Now()))
	if len(written) != 10 || written[0] != week {
		t.Fatalf("write hook saw %v", written)
	}
}
