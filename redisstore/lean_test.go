package redisstore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"podium/board"
)

// TestLeanPageIsTheScriptsPage: the plain-command page, around.lua's
// around-me and rank.lua's standings (lean.go) answer exactly what
// view.lua and standing.lua do, for every rank style it serves, either
// order, with and without extra fields and time tie-breaks, at every
// offset, through tie groups longer than its look-back (where it hands
// the page to view.lua).
func TestLeanPageIsTheScriptsPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rng := rand.New(rand.NewPCG(25, 27))
	for _, style := range []board.RankStyle{board.Competition, board.Ordinal} {
		for _, order := range []board.Order{board.HigherIsBetter, board.LowerIsBetter} {
			for _, tb := range []board.TieBreak{board.ByMember, board.Earliest} {
				for _, fields := range [][]board.Field{nil, {{Name: "clears", Desc: true}}} {
					name := fmt.Sprintf("%s/%s/%s/%d", style, order, tb, len(fields))
					t.Run(name, func(t *testing.T) {
						b := f.board(board.Board{Order: order, TieBreak: tb, RankStyle: style, Fields: fields, Periods: []board.Kind{board.AllTime}})
						// 3 scores over 70 members: tie groups far longer
						// than the look-back, and short ones at the ends.
						for i := range 70 {
							s := board.Submission{Member: fmt.Sprintf("m%02d", i), Score: float64(rng.IntN(3)), Op: board.Set, Name: fmt.Sprintf("Member %d", i)}
							if i%9 == 0 {
								s.Score = float64(10 + i) // alone
							}
							if fields != nil {
								s.Fields = []int64{int64(rng.IntN(2))}
							}
							if _, err := f.store.Submit(f.ctx, b.ID, s, tester); err != nil {
								t.Fatal(err)
							}
						}
						p := b.Current(board.AllTime, f.clock.Now())
						z := ZSetKey(b.ID, p)
						lean := 0
						for offset := 0; offset <= 72; offset++ {
							limit := 1 + rng.IntN(8)
							got, ok, err := f.store.leanPage(f.ctx, b, p, z, namesKey(b.ID), offset, limit)
							if err != nil {
								t.Fatal(err)
							}
							if !ok {
								continue
							}
							lean++
							reply, err := viewCall(b, z, namesKey(b.ID), "page", offset, limit).run(f.ctx, f.rdb).Result()
							if err != nil {
								t.Fatal(err)
							}
							want, _, err := decodeView(b, p, reply)
							if err != nil {
								t.Fatal(err)
							}
							if !reflect.DeepEqual(got, want) {
								t.Fatalf("offset %d limit %d:\nlean   %+v\nscript %+v", offset, limit, got, want)
							}
						}
						if lean < 20 {
							t.Errorf("only %d of 73 pages read lean", lean)
						}
						lean = 0
						for i := range 71 {
							member, k := fmt.Sprintf("m%02d", i), rng.IntN(6)
							got, ok, err := f.store.leanAround(f.ctx, b, p, z, namesKey(b.ID), member, k)
							if i == 70 { // not on the board
								if !errors.Is(err, board.ErrNotFound) {
									t.Fatalf("around a member not on the board: %v, %v", got, err)
								}
								continue
							}
							if err != nil {
								t.Fatal(err)
							}
							if !ok {
								continue
							}
							lean++
							reply, err := viewCall(b, z, namesKey(b.ID), "around", member, k).run(f.ctx, f.rdb).Result()
							if err != nil {
								t.Fatal(err)
							}
							want, _, err := decodeView(b, p, reply)
							if err != nil {
								t.Fatal(err)
							}
							if !reflect.DeepEqual(got, want) {
								t.Fatalf("around %s k %d:\nlean   %+v\nscript %+v", member, k, got, want)
							}
						}
						if lean < 20 {
							t.Errorf("only %d of 70 around-me windows read lean", lean)
						}
						if fields != nil {
							return // rank.lua serves ties by score alone
						}
						var members []string
						for i := range 72 {
							members = append(members, fmt.Sprintf("m%02d", i)) // two not on the board
						}
						got, err := f.store.leanStandings(f.ctx, b, []board.Period{p}, members)
						if err != nil {
							t.Fatal(err)
						}
						want, err := f.store.scriptStandings(f.ctx, b, []board.Period{p}, members, time.Time{})
						if err != nil {
							t.Fatal(err)
						}
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("standings:\nrank.lua     %+v\nstanding.lua %+v", got, want)
						}
					})
				}
			}
		}
	}
}
