package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// The guarantee of a walk by marks (board.Mark, the API's cursors): a
// member present in the period for the whole walk whose score and order
// key never change during it is returned exactly once; any other member
// (new, removed, or moved, that is given another score or tie-break
// instant) may be returned once, twice or not at all. Every page is
// exactly the rows that come after its mark in the period as it is when
// the page is read, with the ranks and total an offset page read then
// gives.

// TestCursorWalkProperty walks boards by marks while random writes
// (increments, new members, removals, new ties, the marked row itself
// moving or leaving) happen between the pages, for every order, tie-break
// and rank style, with and without extra fields, and checks the guarantee
// and every page against the period read whole.
func TestCursorWalkProperty(t *testing.T) {
	walks := 8
	if testing.Short() {
		walks = 2
	}
	for _, order := range []board.Order{board.HigherIsBetter, board.LowerIsBetter} {
		for _, tb := range []board.TieBreak{board.Earliest, board.Latest, board.ByMember} {
			for _, style := range []board.RankStyle{board.Competition, board.Dense, board.Ordinal} {
				for _, fields := range []bool{false, true} {
					if tb == board.ByMember && style == board.Dense {
						continue // refused: plain outside writes cannot keep dense ranks
					}
					name := fmt.Sprintf("%s-%s-%s-fields:%v", order, tb, style, fields)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						f := newFixture(t)
						def := board.Board{Order: order, TieBreak: tb, RankStyle: style, Periods: []board.Kind{board.AllTime}}
						if fields {
							def.Fields = []board.Field{{Name: "clears", Desc: true}}
						}
						w := &walker{f: f, b: f.board(def), rng: rand.New(rand.NewPCG(uint64(len(name)), 28))}
						w.p = w.b.Current(board.AllTime, f.clock.Now())
						for i := range 30 {
							w.submit(fmt.Sprintf("m%02d", i), board.Set, float64(w.rng.IntN(4)))
						}
						for range walks {
							w.walk(t)
						}
					})
				}
			}
		}
	}
}

type walker struct {
	f   *fixture
	b   *board.Board
	p   board.Period
	rng *rand.Rand
}

func (w *walker) submit(member string, op board.Op, v float64) {
	w.f.t.Helper()
	sub := board.Submission{Member: member, Score: v, Op: op}
	if len(w.b.Fields) > 0 {
		sub.Fields = []int64{int64(w.rng.IntN(2))}
	}
	if _, err := w.f.store.Submit(w.f.ctx, w.b.ID, sub, tester); err != nil {
		w.f.t.Fatal(err)
	}
}

// whole is the period in board order, each row with its member, score
// and order key, read with plain commands.
func (w *walker) whole() []board.Entry {
	w.f.t.Helper()
	z := ZSetKey(w.b.ID, w.p)
	var zs []redis.Z
	var err error
	if w.b.Order == board.HigherIsBetter {
		zs, err = w.f.rdb.ZRevRangeWithScores(w.f.ctx, z, 0, -1).Result()
	} else {
		zs, err = w.f.rdb.ZRangeWithScores(w.f.ctx, z, 0, -1).Result()
	}
	if err != nil {
		w.f.t.Fatal(err)
	}
	out := make([]board.Entry, len(zs))
	for i, x := range zs {
		key := x.Member.(string)
		id, _ := encodingOf(w.b).split(key)
		out[i] = board.Entry{Member: id, Score: x.Score, Key: key, Position: i}
	}
	return out
}

// scramble makes one to three random writes; last is the marked row.
func (w *walker) scramble(last board.Entry) {
	for range 1 + w.rng.IntN(3) {
		member := fmt.Sprintf("m%02d", w.rng.IntN(45)) // some new
		switch w.rng.IntN(8) {
		case 0, 1:
			w.submit(member, board.Incr, float64(1+w.rng.IntN(2)))
		case 2: // a new tie with another member
			if all := w.whole(); len(all) > 0 {
				w.submit(member, board.Set, all[w.rng.IntN(len(all))].Score)
			}
		case 3:
			w.submit(member, board.Best, float64(w.rng.IntN(5)))
		case 4:
			if _, err := w.f.store.RemoveMember(w.f.ctx, w.b.ID, member, nil, tester); err != nil {
				w.f.t.Fatal(err)
			}
		case 5: // the marked row moves
			w.submit(last.Member, board.Incr, 1)
		case 6: // the marked row leaves
			if _, err := w.f.store.RemoveMember(w.f.ctx, w.b.ID, last.Member, nil, tester); err != nil {
				w.f.t.Fatal(err)
			}
		default: // a member joins at the marked row's score
			w.submit(fmt.Sprintf("n%02d", w.rng.IntN(20)), board.Set, last.Score)
		}
	}
}

// walk pages through the period by marks from the start, scrambling it
// between pages for a while, and checks every page and the guarantee.
func (w *walker) walk(t *testing.T) {
	t.Helper()
	limit := 1 + w.rng.IntN(5)
	stable := map[string]board.Entry{}
	for _, e := range w.whole() {
		stable[e.Member] = e
	}
	seen := map[string]int{}
	pg := w.f.page(w.b, board.AllTime, 0, limit)
	higher := w.b.Order == board.HigherIsBetter
	for step := 0; ; step++ {
		for _, e := range pg.Entries {
			seen[e.Member]++
		}
		if len(pg.Entries) == 0 || pg.Entries[len(pg.Entries)-1].Position+1 >= pg.Total {
			break
		}
		if step > 400 {
			t.Fatal("the walk does not end")
		}
		last := pg.Entries[len(pg.Entries)-1]
		if step < 20 {
			w.scramble(last)
			now := map[string]board.Entry{}
			for _, e := range w.whole() {
				now[e.Member] = e
			}
			for m, e := range stable {
				if n, ok := now[m]; !ok || n.Key != e.Key || n.Score != e.Score {
					delete(stable, m)
				}
			}
		}
		mark := board.MarkOf(last)
		all := w.whole()
		start := 0
		for start < len(all) && !mark.Precedes(all[start], higher) {
			start++
		}
		for _, e := range all[start:] {
			if !mark.Precedes(e, higher) {
				t.Fatalf("step %d: the period is not in the order Precedes says at %+v", step, e)
			}
		}
		var err error
		if pg, err = w.f.store.PageAfter(w.f.ctx, w.b, w.p, mark, limit); err != nil {
			t.Fatal(err)
		}
		want := w.f.page(w.b, board.AllTime, start, limit)
		if pg.Offset != start || pg.Total != len(all) || !slices.Equal(storeRows(w.b, pg), storeRows(w.b, want)) || !sameKeys(pg, want) {
			t.Fatalf("step %d: after %+v: offset %d of %d, want %d of %d\n got  %v\n want %v", step, mark, pg.Offset, pg.Total, start, len(all), storeRows(w.b, pg), storeRows(w.b, want))
		}
	}
	for m := range stable {
		if seen[m] != 1 {
			t.Fatalf("%s kept its place and was seen %d times (limit %d)", m, seen[m], limit)
		}
	}
}

func sameKeys(a, b board.Page) bool {
	return slices.EqualFunc(a.Entries, b.Entries, func(x, y board.Entry) bool { return x.Key == y.Key && x.Position == y.Position })
}

// TestCursorMarks: a mark whose row left, moved or never was places the
// page where its score and key fall; a position mark is an offset; past
// the end is an empty page; a mark that is no place is refused.
func TestCursorMarks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{TieBreak: board.ByMember, Periods: []board.Kind{board.AllTime}}) // higher is better: m9 first
	for i := range 10 {
		f.submit(b, fmt.Sprintf("m%d", i), 5, board.Set)
	}
	f.submit(b, "top", 9, board.Set)
	p := b.Current(board.AllTime, f.clock.Now())
	after := func(m board.Mark, limit int) string {
		t.Helper()
		pg, err := f.store.PageAfter(f.ctx, b, p, m, limit)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(pg.Offset, " ", pg.Total, " ", rows(pg))
	}
	for _, c := range []struct {
		name string
		mark board.Mark
		want string
	}{
		{"the top", board.Mark{Score: 9, Key: "top", Position: 0}, "1 11 [2 m9 5 2 m8 5]"},
		{"inside a tie", board.Mark{Score: 5, Key: "m7", Position: 3}, "4 11 [2 m6 5 2 m5 5]"},
		{"a row that never was", board.Mark{Score: 5, Key: "m75", Position: 3}, "3 11 [2 m7 5 2 m6 5]"},
		{"a score between", board.Mark{Score: 7, Key: "zz", Position: 0}, "1 11 [2 m9 5 2 m8 5]"},
		{"above everything", board.Mark{Score: math.Inf(1), Key: "a"}, "0 11 [1 top 9 2 m9 5]"},
		{"a position", board.Mark{Score: 5, Position: 8}, "9 11 [2 m1 5 2 m0 5]"},
		{"the last", board.Mark{Score: 5, Key: "m0", Position: 10}, "11 11 []"},
	} {
		if got := after(c.mark, 2); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// The marked row moves away or leaves: the page is where it was.
	f.submit(b, "m7", 1, board.Set)
	if _, err := f.store.RemoveMember(f.ctx, b.ID, "m6", nil, tester); err != nil {
		t.Fatal(err)
	}
	if got, want := after(board.Mark{Score: 5, Key: "m7", Position: 3}, 2), "3 10 [2 m5 5 2 m4 5]"; got != want {
		t.Errorf("after a row that moved: %s, want %s", got, want)
	}
	if got, want := after(board.Mark{Score: 5, Key: "m6", Position: 3}, 2), "3 10 [2 m5 5 2 m4 5]"; got != want {
		t.Errorf("after a row that left: %s, want %s", got, want)
	}
	for _, m := range []board.Mark{{Score: math.NaN(), Key: "m1"}, {Score: 1, Position: -2}} {
		if _, err := f.store.PageAfter(f.ctx, b, p, m, 2); !errors.Is(err, board.ErrInvalidInput) {
			t.Errorf("mark %+v: %v", m, err)
		}
	}
	if _, err := f.store.PageAfter(f.ctx, b, p, board.Mark{}, 0); !errors.Is(err, board.ErrInvalidInput) {
		t.Errorf("limit 0: %v", err)
	}
}

// TestCursorFrozenAndWindow: the public of a frozen board walks its copy
// at the freeze by marks, while admins walk the live standings; a rolling
// window is walked like a period.
func TestCursorFrozenAndWindow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime, board.Last7d}, RankStyle: board.Dense})
	for _, s := range []struct {
		m string
		v float64
	}{{"ann", 10}, {"bob", 10}, {"cat", 7}, {"dan", 5}} {
		f.submit(b, s.m, s.v, board.Set)
	}
	fb, err := f.store.Freeze(f.ctx, b.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	b = &fb
	f.submit(b, "eve", 10, board.Set) // joins the tie, after the freeze
	f.submit(b, "cat", 1, board.Set)  // falls, after the freeze
	b = f.fresh(b.ID)
	walk := func(ctx context.Context, k board.Kind) []string {
		t.Helper()
		p := b.Current(k, f.clock.Now())
		pg, err := f.store.Page(ctx, b, p, 0, 2)
		var out []string
		for err == nil && len(pg.Entries) > 0 {
			out = append(out, rows(pg)...)
			pg, err = f.store.PageAfter(ctx, b, p, board.MarkOf(pg.Entries[len(pg.Entries)-1]), 2)
		}
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, k := range []board.Kind{board.AllTime, board.Last7d} {
		if got, want := walk(f.ctx, k), []string{"1 ann 10", "1 bob 10", "2 cat 7", "3 dan 5"}; !slices.Equal(got, want) {
			t.Errorf("%s, public: %v, want the standings at the freeze %v", k, got, want)
		}
		if got, want := walk(LiveStandings(f.ctx), k), []string{"1 ann 10", "1 bob 10", "1 eve 10", "2 dan 5", "3 cat 1"}; !slices.Equal(got, want) {
			t.Errorf("%s, admins: %v, want %v", k, got, want)
		}
	}
}
