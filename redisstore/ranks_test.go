package redisstore

import (
	"fmt"
	"slices"
	"testing"

	"podium/board"
)

func TestTiedRanksInEachStyle(t *testing.T) {
	scores := map[string]float64{"a": 100, "b": 90, "c": 90, "d": 90, "e": 80, "f": 70, "g": 70}
	order := []string{"a", "b", "c", "d", "e", "f", "g"} // submission order: earliest first
	tests := []struct {
		style board.RankStyle
		ranks []int
	}{
		{board.Competition, []int{1, 2, 2, 2, 5, 6, 6}},
		{board.Dense, []int{1, 2, 2, 2, 3, 4, 4}},
		{board.Ordinal, []int{1, 2, 3, 4, 5, 6, 7}},
	}
	for _, tc := range tests {
		t.Run(string(tc.style), func(t *testing.T) {
			f := newFixture(t)
			b := f.board(board.Board{RankStyle: tc.style})
			for _, m := range order {
				f.submit(b, m, scores[m], board.Set)
			}
			pg := f.page(b, board.AllTime, 0, 50)
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
				w := f.page(b, board.AllTime, off, 2)
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
		board  board.Board
		submit []string // members in submission order, all with equal scores
		want   []string
	}{
		{"earliest first, higher is better", board.Board{TieBreak: board.Earliest}, []string{"m", "z", "a"}, []string{"m", "z", "a"}},
		{"earliest first, lower is better", board.Board{TieBreak: board.Earliest, Order: board.LowerIsBetter}, []string{"m", "z", "a"}, []string{"m", "z", "a"}},
		{"latest first", board.Board{TieBreak: board.Latest}, []string{"m", "z", "a"}, []string{"a", "z", "m"}},
		{"latest first, lower is better", board.Board{TieBreak: board.Latest, Order: board.LowerIsBetter}, []string{"m", "z", "a"}, []string{"a", "z", "m"}},
		{"member order as Redis, higher is better (ZREVRANGE)", board.Board{TieBreak: board.ByMember}, []string{"m", "z", "a"}, []string{"z", "m", "a"}},
		{"member order as Redis, lower is better", board.Board{TieBreak: board.ByMember, Order: board.LowerIsBetter}, []string{"m", "z", "a"}, []string{"a", "m", "z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.board.RankStyle = board.Ordinal
			b := f.board(tc.board)
			for _, m := range tc.submit {
				f.submit(b, m, 42, board.Set)
			}
			f.submit(b, "top", 50, board.Set)
			f.submit(b, "bottom", 10, board.Set)
			if b.Order == board.LowerIsBetter {
				f.submit(b, "top", 1, board.Set)
				f.submit(b, "bottom", 99, board.Set)
			}
			var got []string
			for _, e := range f.page(b, board.AllTime, 0, 10).Entries {
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
	b := f.board(board.Board{RankStyle: board.Ordinal})
	f.submit(b, "first", 10, board.Set)
	f.submit(b, "second", 10, board.Set)
	f.submit(b, "first", 10, board.Set)  // same score again: still reached it first
	f.submit(b, "second", 5, board.Best) // worse: ignored
	if got := rows(f.page(b, board.AllTime, 0, 5)); !slices.Equal(got, []string{"1 first 10", "2 second 10"}) {
		t.Fatalf("%v", got)
	}
	f.submit(b, "first", 11, board.Set)
	f.submit(b, "first", 10, board.Set) // reached 10 again, now after second
	if got := rows(f.page(b, board.AllTime, 0, 5)); !slices.Equal(got, []string{"1 second 10", "2 first 10"}) {
		t.Fatalf("%v", got)
	}
}

func TestExtraSortFields(t *testing.T) {
	for _, style := range []board.RankStyle{board.Competition, board.Dense, board.Ordinal} {
		t.Run(string(style), func(t *testing.T) {
			f := newFixture(t)
			// clears desc, then revives asc, then first-clear time asc.
			b := f.board(board.Board{RankStyle: style, Fields: []board.Field{{Name: "clears", Desc: true}, {Name: "revives"}, {Name: "first_clear"}}})
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
				if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: s.m, Score: s.score, Op: board.Set, Fields: s.fields}, tester); err != nil {
					t.Fatal(err)
				}
			}
			wantOrder := []string{"e", "c", "b", "g", "a", "d", "f"}
			wantRank := map[board.RankStyle][]int{
				board.Competition: {1, 2, 3, 4, 5, 5, 7},
				board.Dense:       {1, 2, 3, 4, 5, 5, 6},
				board.Ordinal:     {1, 2, 3, 4, 5, 6, 7},
			}[style]
			pg := f.page(b, board.AllTime, 0, 10)
			for i, e := range pg.Entries {
				if e.Member != wantOrder[i] || e.Rank != wantRank[i] {
					t.Fatalf("row %d: %s rank %d, want %s rank %d (%v)", i, e.Member, e.Rank, wantOrder[i], wantRank[i], rows(pg))
				}
			}
			if !slices.Equal(pg.Entries[1].Fields, []int64{7, 1, 3000}) {
				t.Fatalf("fields not decoded: %v", pg.Entries[1].Fields)
			}
			// A window that starts inside the a/d tie group still ranks d as 5th.
			w := f.page(b, board.AllTime, 5, 2)
			if w.Entries[0].Member != "d" || w.Entries[0].Rank != wantRank[5] || w.Entries[1].Rank != wantRank[6] {
				t.Fatalf("window at 5: %v", rows(w))
			}
			// Omitting fields keeps the member's own.
			f.submit(b, "f", 1, board.Incr)
			st, _ := f.store.Ranks(f.ctx, b, b.Current(board.AllTime, f.clock.Now()), []string{"f"})
			if st[0].Score != 101 || st[0].Rank != 2 {
				t.Fatalf("f after incr: %+v", st[0])
			}
		})
	}
}

// TestRankStyleChange: only dense boards keep the tie-group index, so a
// board that turns dense has it built from its scores (every period that
// holds data), and one that stops being dense drops it.
func TestRankStyleChange(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}})
	for i, m := range []string{"ann", "bob", "cat", "dan", "eve"} {
		f.submit(b, m, float64(10*(i/2)), board.Set) // 0 0 10 10 20
	}
	z := ZSetKey(b.ID, b.Current(board.AllTime, f.clock.Now()))
	if n := f.rdb.Exists(f.ctx, distinctKey(z), groupCountKey(z)).Val(); n != 0 {
		t.Fatalf("a competition board keeps %d index keys", n)
	}
	dense := *b
	dense.RankStyle = board.Dense
	upd, err := f.store.UpdateBoard(f.ctx, dense)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []board.Kind{board.Daily, board.AllTime} {
		got := rows(f.page(&upd, k, 0, 10))
		want := []string{"1 eve 20", "2 cat 10", "2 dan 10", "3 ann 0", "3 bob 0"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s after turning dense: %v", k, got)
		}
	}
	f.submit(&upd, "fay", 15, board.Set) // kept from now on
	if got := rows(f.page(&upd, board.AllTime, 0, 3)); fmt.Sprint(got) != "[1 eve 20 2 fay 15 3 cat 10]" {
		t.Fatalf("after a write: %v", got)
	}
	upd.RankStyle = board.Competition
	if _, err := f.store.UpdateBoard(f.ctx, upd); err != nil {
		t.Fatal(err)
	}
	if n := f.rdb.Exists(f.ctx, distinctKey(z), groupCountKey(z)).Val(); n != 0 {
		t.Fatalf("the index stayed: %d keys", n)
	}
}
