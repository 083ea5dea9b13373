package redisstore

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"podium/board"
)

// segModel is the model of TestReferenceModel with segments: each member's
// value of each attribute, and a segment's standing is the period's
// entries of the members holding the value, ranked among themselves.
type segModel struct {
	*model
	values  map[string]map[string]string // attribute -> member -> value
	periods map[string]board.Period      // every period the model has held
}

func (m *segModel) set(id string, vs map[string]string) {
	for a, v := range vs {
		if v == "" {
			delete(m.values[a], id)
		} else {
			m.values[a][id] = v
		}
	}
}

// segPage is segment seg's standing in p: rows as storeRows writes them,
// each with the member's rank on the whole period.
func (m *segModel) segPage(p board.Period, seg board.Segment) []string {
	all, ranks := m.sorted(p)
	global := map[string]int{}
	for i, e := range all {
		global[e.id] = ranks[i]
	}
	in := map[string]*modelEntry{}
	for id, e := range m.period(p) {
		if m.values[seg.Attr][id] == seg.Value {
			in[id] = e
		}
	}
	sub := &model{b: m.b, periods: map[string]map[string]*modelEntry{p.String(): in}}
	es, rs := sub.sorted(p)
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = sub.row(e, rs[i]) + fmt.Sprintf(" g%d", global[e.id])
	}
	return out
}

func segStoreRows(b *board.Board, pg board.Page) []string {
	rows := storeRows(b, pg)
	for i, e := range pg.Entries {
		rows[i] += fmt.Sprintf(" g%d", e.GlobalRank)
	}
	return rows
}

// TestSegmentModel applies random scores, value changes (with a score and
// on their own), removals, resets and period closes to Redis and to the
// model, for every order, tie-break and rank style, with extra fields and a
// size cap, and compares every segment's standing of every period held
// after each: pages, ranks within the segment and on the whole period.
func TestSegmentModel(t *testing.T) {
	ops := 80
	if testing.Short() {
		ops = 25
	}
	var total atomic.Int64
	for _, order := range []board.Order{board.HigherIsBetter, board.LowerIsBetter} {
		for _, tb := range []board.TieBreak{board.Earliest, board.ByMember} {
			for _, style := range []board.RankStyle{board.Competition, board.Dense, board.Ordinal} {
				for _, variant := range []string{"plain", "fields", "cap"} {
					if tb == board.ByMember && style == board.Dense {
						continue
					}
					name := fmt.Sprintf("%s-%s-%s-%s", order, tb, style, variant)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						def := board.Board{Order: order, TieBreak: tb, RankStyle: style, Periods: []board.Kind{board.Daily, board.AllTime},
							Segments: []string{"country", "class"}}
						switch variant {
						case "fields":
							def.Fields = []board.Field{{Name: "clears", Desc: true}}
						case "cap":
							def.Cap = 5
						}
						total.Add(int64(runSegmentModel(t, def, ops, uint64(len(name))*7717+uint64(ops))))
					})
				}
			}
		}
	}
	t.Cleanup(func() { t.Logf("%d random operations checked against the segment model", total.Load()) })
}

func runSegmentModel(t *testing.T, def board.Board, ops int, seed uint64) int {
	f := newFixture(t)
	now := time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC)
	f.store.now = func() time.Time { return now }
	b := f.board(def)
	m := &segModel{model: &model{b: b, periods: map[string]map[string]*modelEntry{}},
		values: map[string]map[string]string{"country": {}, "class": {}}, periods: map[string]board.Period{}}
	rng := rand.New(rand.NewPCG(seed, 7))
	members := []string{"a", "b", "c", "d", "e", "f", "g", "ab", "Émile"}
	values := map[string][]string{"country": {"", "NO", "SE", "United Kingdom"}, "class": {"", "A", "B"}}
	current := func() []board.Period {
		return []board.Period{b.Current(board.Daily, now), b.Current(board.AllTime, now)}
	}
	randomValues := func() map[string]string {
		vs := map[string]string{}
		for _, a := range b.Segments {
			if rng.IntN(2) == 0 {
				vs[a] = values[a][rng.IntN(len(values[a]))]
			}
		}
		return vs
	}
	for i := range ops {
		if rng.IntN(4) > 0 {
			now = now.Add(time.Duration(1+rng.IntN(900)) * time.Millisecond)
		}
		if rng.IntN(25) == 0 {
			now = now.Add(3 * time.Hour) // closes the day now and then
		}
		for _, p := range current() {
			m.periods[p.String()] = p
		}
		id := members[rng.IntN(len(members))]
		switch what := rng.IntN(20); {
		case what < 12:
			op := []board.Op{board.Incr, board.Decr, board.Set, board.Best}[rng.IntN(4)]
			v := float64(rng.IntN(6))
			var fields []int64
			if len(b.Fields) > 0 && rng.IntN(2) == 0 {
				fields = []int64{int64(rng.IntN(2))}
			}
			var vs map[string]string
			if rng.IntN(3) == 0 {
				vs = randomValues()
			}
			if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: id, Score: v, Op: op, Fields: fields, Segments: vs}, tester); err != nil {
				t.Fatalf("op %d: submit: %v", i, err)
			}
			m.set(id, vs)
			m.submit(current(), id, v, op, fields, now)
		case what < 16:
			a := b.Segments[rng.IntN(len(b.Segments))]
			v := values[a][rng.IntN(len(values[a]))]
			if _, _, err := f.store.SetSegment(f.ctx, b.ID, id, a, v, tester); err != nil {
				t.Fatalf("op %d: set %s of %s to %q: %v", i, a, id, v, err)
			}
			m.set(id, map[string]string{a: v})
		case what < 18:
			p := current()[rng.IntN(2)]
			if _, err := f.store.RemoveMember(f.ctx, b.ID, id, &p, tester); err != nil {
				t.Fatal(err)
			}
			delete(m.period(p), id)
		case what < 19:
			if _, err := f.store.RemoveMember(f.ctx, b.ID, id, nil, tester); err != nil {
				t.Fatal(err)
			}
			for _, es := range m.model.periods {
				delete(es, id)
			}
			m.set(id, map[string]string{"country": "", "class": ""}) // out of every period: out of its segments
		default:
			p := current()[0]
			if _, err := f.store.ResetPeriod(f.ctx, b.ID, p, tester); err != nil {
				t.Fatal(err)
			}
			delete(m.model.periods, p.String())
		}
		compareSegments(t, f, m, b, rng, fmt.Sprintf("op %d", i))
	}
	return ops
}

func compareSegments(t *testing.T, f *fixture, m *segModel, b *board.Board, rng *rand.Rand, where string) {
	t.Helper()
	for _, key := range slices.Sorted(maps.Keys(m.periods)) {
		p := m.periods[key]
		for _, a := range b.Segments {
			held := map[string]bool{}
			for _, v := range m.values[a] {
				held[v] = true
			}
			held["nobody-holds-this"] = true
			for _, v := range slices.Sorted(maps.Keys(held)) {
				seg := board.Segment{Attr: a, Value: v}
				want := m.segPage(p, seg)
				pg, err := f.store.SegmentPage(f.ctx, b, p, seg, 0, 100)
				if err != nil {
					t.Fatalf("%s: %s %s: %v", where, p, seg, err)
				}
				if got := segStoreRows(b, pg); !slices.Equal(got, want) || pg.Total != len(want) {
					t.Fatalf("%s: %s %s (total %d)\n got  %v\n want %v", where, p, seg, pg.Total, got, want)
				}
				if off := rng.IntN(len(want) + 1); off < len(want) {
					pg, err := f.store.SegmentPage(f.ctx, b, p, seg, off, 2)
					if err != nil {
						t.Fatal(err)
					}
					if got := segStoreRows(b, pg); !slices.Equal(got, want[off:min(off+2, len(want))]) {
						t.Fatalf("%s: %s %s from %d\n got  %v\n want %v", where, p, seg, off, got, want[off:min(off+2, len(want))])
					}
				}
				compareSegmentRanks(t, f, b, p, seg, want, where)
			}
		}
	}
}

// compareSegmentRanks checks every member's standing within the segment
// against rows, the model's standing of it (segPage).
func compareSegmentRanks(t *testing.T, f *fixture, b *board.Board, p board.Period, seg board.Segment, rows []string, where string) {
	t.Helper()
	ids := []string{"a", "b", "c", "d", "e", "f", "g", "ab", "Émile"}
	sts, err := f.store.SegmentRanks(f.ctx, b, p, seg, ids)
	if err != nil {
		t.Fatal(err)
	}
	type place struct{ pos, rank int }
	at := make(map[string]place, len(rows))
	for pos, r := range rows {
		var rank int
		var mid string
		_, _ = fmt.Sscanf(r, "%d %s", &rank, &mid)
		at[mid] = place{pos, rank}
	}
	for i, id := range ids {
		st := sts[i]
		want, ok := at[id]
		if ok != st.Ranked || st.Total != len(rows) {
			t.Fatalf("%s: %s %s: %s ranked %v of %d, want %v of %d", where, p, seg, id, st.Ranked, st.Total, ok, len(rows))
		}
		if !ok {
			continue
		}
		if st.Rank != want.rank || st.Position != want.pos {
			t.Fatalf("%s: %s %s: %s rank %d at %d, want %d at %d", where, p, seg, id, st.Rank, st.Position, want.rank, want.pos)
		}
	}
}
