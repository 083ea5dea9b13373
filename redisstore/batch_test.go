package redisstore

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"podium/board"
)

func TestSubmitBatch(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}})
	f.submit(b, "big", board.MaxExact-1, board.Set)
	before := dumpBoard(t, f, b.ID)
	// A later item that would overflow refuses the whole batch.
	_, err := f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{
		{Member: "ann", Score: 5},
		{Member: "big", Score: 1},
		{Member: "big", Score: 1}, // 2^53 + 1 only with the item before it
	}, board.BatchOptions{By: tester})
	var be *board.BatchError
	if !errors.As(err, &be) || be.Index != 2 || !errors.Is(err, board.ErrInvalidScore) {
		t.Fatalf("overflow in item 2: %v", err)
	}
	// So does an invalid item, before Redis is asked.
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{{Member: "ann", Score: 5}, {Member: "", Score: 1}}, board.BatchOptions{By: tester}); !errors.As(err, &be) || be.Index != 1 {
		t.Fatalf("invalid item 1: %v", err)
	}
	if after := dumpBoard(t, f, b.ID); !maps2Equal(before, after) {
		t.Fatal("a refused batch wrote")
	}
	// Items apply in order; later ones see earlier ones; each reports its ranks.
	res, err := f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{
		{Member: "ann", Score: 10, Name: "Ann"},
		{Member: "bob", Score: 20},
		{Member: "ann", Score: 15, IdempotencyKey: "ann-bonus"},
	}, board.BatchOptions{Key: "batch-1", By: tester})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := res[2].Change(board.AllTime); c.Before != (board.Place{Ranked: true, Score: 10, Rank: 3}) || c.After != (board.Place{Ranked: true, Score: 25, Rank: 2}) {
		t.Fatalf("third item: %+v", c)
	}
	// The same batch again is a replay, applied once.
	again, err := f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{
		{Member: "ann", Score: 10, Name: "Ann"},
		{Member: "bob", Score: 20},
		{Member: "ann", Score: 15, IdempotencyKey: "ann-bonus"},
	}, board.BatchOptions{Key: "batch-1", By: tester})
	if err != nil || !again[0].Replayed || again[2].Changes[1].After != res[2].Changes[1].After {
		t.Fatalf("replayed batch: %+v %v", again, err)
	}
	// The key with another batch is refused, and nothing is written.
	before = dumpBoard(t, f, b.ID)
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{{Member: "ann", Score: 10}, {Member: "bob", Score: 20}}, board.BatchOptions{Key: "batch-1", By: tester}); !errors.Is(err, board.ErrIdempotencyReused) {
		t.Fatalf("batch key reused: %v", err)
	}
	// So is an item key with another item, naming the item.
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{{Member: "cat", Score: 1}, {Member: "ann", Score: 16, IdempotencyKey: "ann-bonus"}}, board.BatchOptions{By: tester}); !errors.As(err, &be) || be.Index != 1 || !errors.Is(err, board.ErrIdempotencyReused) {
		t.Fatalf("item key reused: %v", err)
	}
	if after := dumpBoard(t, f, b.ID); !maps2Equal(before, after) {
		t.Fatal("a reused key wrote")
	}
	// An item whose own key was used is skipped inside a new batch.
	mixed, err := f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{{Member: "ann", Score: 15, IdempotencyKey: "ann-bonus"}, {Member: "cat", Score: 1}}, board.BatchOptions{By: tester})
	if err != nil || !mixed[0].Replayed || mixed[1].Replayed {
		t.Fatalf("mixed batch: %+v %v", mixed, err)
	}
	if got := rows(f.page(b, board.AllTime, 0, 5)); !slices.Equal(got, []string{"1 big 9007199254740991", "2 ann 25", "3 bob 20", "4 cat 1"}) {
		t.Fatalf("after batches: %v", got)
	}
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, make([]board.Submission, board.MaxBatch+1), board.BatchOptions{By: tester}); !errors.Is(err, board.ErrInvalidInput) {
		t.Fatalf("oversized batch: %v", err)
	}
}

// TestBatchWithoutRanks: a batch that skips ranks writes each period in a
// few commands, from each member's entry before the call to its entry after
// it; the board it leaves is the one the item-by-item path leaves, on every
// kind of board, with members repeated within the batch.
func TestBatchWithoutRanks(t *testing.T) {
	f := newFixture(t)
	variants := []board.Board{
		{},
		{RankStyle: board.Dense, Fields: []board.Field{{Name: "level", Desc: true}}},
		{TieBreak: board.ByMember},
		{Order: board.LowerIsBetter, TieBreak: board.Latest, RankStyle: board.Dense},
	}
	for vi, v := range variants {
		v.Periods = []board.Kind{board.Daily, board.AllTime}
		var subs []board.Submission
		for i := range 300 {
			sub := board.Submission{Member: fmt.Sprintf("m%02d", (i*7)%40), Score: float64(i % 9), Op: []board.Op{board.Incr, board.Set, board.Best, board.Decr}[i%4]}
			if sub.Op == board.Decr {
				sub.Score = 1
			}
			if v.Fields != nil {
				sub.Fields = []int64{int64(i % 3)}
			}
			if i%50 == 0 {
				sub.Name = fmt.Sprintf("Name %d", i)
			}
			subs = append(subs, sub)
		}
		var pages [2][]string
		for j, ranks := range []bool{true, false} {
			b := v
			b.ID = fmt.Sprintf("%s-%d-%d", testBoardID(t), vi, j)
			bd := f.board(b)
			seed := []board.Submission{{Member: "m01", Score: 5, Op: board.Set}, {Member: "m02", Score: 3, Op: board.Set}}
			if v.Fields != nil {
				seed[0].Fields, seed[1].Fields = []int64{1}, []int64{2}
			}
			if _, err := f.store.SubmitBatch(f.ctx, bd.ID, seed, board.BatchOptions{By: tester}); err != nil {
				t.Fatal(err)
			}
			res, err := f.store.SubmitBatch(f.ctx, bd.ID, subs, board.BatchOptions{By: tester, NoRanks: !ranks})
			if err != nil {
				t.Fatalf("variant %d ranks %v: %v", vi, ranks, err)
			}
			last := map[string]float64{}
			for i, r := range res {
				c, _ := r.Change(board.AllTime)
				last[subs[i].Member] = c.After.Score
			}
			for _, k := range []board.Kind{board.Daily, board.AllTime} {
				pg := f.page(bd, k, 0, 100)
				for _, e := range pg.Entries {
					if k == board.AllTime && last[e.Member] != 0 && last[e.Member] != e.Score {
						t.Fatalf("variant %d ranks %v: %s shows %v, its last result said %v", vi, ranks, e.Member, e.Score, last[e.Member])
					}
					pages[j] = append(pages[j], fmt.Sprintf("%s %d %s %v %s", k, e.Rank, e.Member, e.Score, e.Name))
				}
			}
		}
		slices.Sort(pages[0]) // tie order follows the write's clock, which differs
		slices.Sort(pages[1])
		if !slices.Equal(pages[0], pages[1]) {
			t.Fatalf("variant %d: boards differ\nwith ranks    %v\nwithout ranks %v", vi, pages[0], pages[1])
		}
	}
}
