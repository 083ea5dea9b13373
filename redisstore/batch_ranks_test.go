package redisstore

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"podium/board"
)

// TestBatchRanksItemByItem: a batch's results rank each item in the board as
// it stands right after that item (and before it), as if the items were sent
// one by one, though the script writes the periods in bulk and counts ranks
// in what Redis holds plus the call's changes it has not written yet. The
// batches run past the script's chunk of 32 items, repeat members (one of
// them several times in a row), and use every op, in both orders and
// through group commit's each mode; the model says what each rank must be.
func TestBatchRanksItemByItem(t *testing.T) {
	for _, order := range []board.Order{board.HigherIsBetter, board.LowerIsBetter} {
		for _, each := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s-each-%v", order, each), func(t *testing.T) {
				f := newFixture(t)
				now := time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC)
				f.store.now = func() time.Time { return now }
				b := f.board(board.Board{ID: testBoardID(t), Order: order, Periods: []board.Kind{board.Daily, board.AllTime}})
				m := &model{b: b, periods: map[string]map[string]*modelEntry{}}
				periods := []board.Period{b.Current(board.Daily, now), b.Current(board.AllTime, now)}
				rng := rand.New(rand.NewPCG(7, uint64(len(t.Name()))))
				for round := range 3 {
					subs := make([]board.Submission, 90)
					times := make([]time.Time, len(subs))
					for i := range subs {
						id := fmt.Sprintf("m%02d", rng.IntN(30))
						if i >= 40 && i < 44 {
							id = "again" // one member several times in a row
						}
						op := []board.Op{board.Incr, board.Decr, board.Set, board.Best}[rng.IntN(4)]
						subs[i] = board.Submission{Member: id, Score: float64(rng.IntN(6)), Op: op}
						times[i] = now.Add(time.Duration(round*1000+i) * time.Microsecond)
					}
					var res []board.Result
					if each {
						refused := make([]error, len(subs))
						st, rest, sent, err := f.store.runSubmit(f.ctx, b, subs, times, board.BatchOptions{By: tester}, false, refused)
						if err != nil || st != "ok" || len(sent) != len(subs) {
							t.Fatal(st, err)
						}
						docs, err := decodeItems(rest, len(subs))
						if err != nil {
							t.Fatal(err)
						}
						for _, d := range docs {
							r, err := decodeChanges(b, d.Periods, !d.NoRanks)
							if err != nil || d.Err != "" {
								t.Fatal(d.Err, err)
							}
							res = append(res, r)
						}
					} else {
						var err error
						res, err = f.store.SubmitBatch(f.ctx, b.ID, subs, board.BatchOptions{By: tester})
						if err != nil {
							t.Fatal(err)
						}
					}
					for i, sub := range subs {
						at := now.Add(time.Duration(i) * time.Microsecond)
						if each {
							at = times[i]
						}
						before := modelPlaces(m, periods, sub.Member)
						m.submit(periods, sub.Member, sub.Score, sub.Op, nil, at)
						after := modelPlaces(m, periods, sub.Member)
						for j, p := range periods {
							c, ok := res[i].Change(p.Kind)
							if !ok {
								t.Fatalf("round %d item %d: no change in %s", round, i, p)
							}
							if c.Before != before[j] || c.After != after[j] {
								t.Fatalf("round %d item %d (%s %s %v) in %s: before %+v after %+v, want %+v %+v",
									round, i, sub.Member, sub.Op, sub.Score, p, c.Before, c.After, before[j], after[j])
							}
						}
					}
					now = now.Add(time.Second)
				}
			})
		}
	}
}

// modelPlaces is the member's place in each period of the model: its score
// and competition rank (one plus the members with a strictly better score).
func modelPlaces(m *model, ps []board.Period, id string) []board.Place {
	out := make([]board.Place, len(ps))
	for j, p := range ps {
		es := m.period(p)
		e := es[id]
		if e == nil {
			continue
		}
		rank := 1
		for _, o := range es {
			if m.cmpTie(o, e) < 0 {
				rank++
			}
		}
		out[j] = board.Place{Ranked: true, Score: e.score, Rank: rank}
	}
	return out
}
