package redisstore

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"podium/board"
)

// leagueModel is the model of TestReferenceModel with a daily league: each
// member's tier, and per day each member's place ("<tier>/<cohort>"),
// given on its first score there in the open cohort of its tier; a
// cohort's standing is the day's entries of the members placed in it.
type leagueModel struct {
	*model
	size    int
	tiers   map[string]int
	places  map[string]map[string]string // period -> member -> place
	counts  map[string]map[string]int    // period -> "<tier>" open cohort, "<tier>/<cohort>" members
	periods map[string]board.Period
}

// place places id in p if its score there is its first.
func (m *leagueModel) place(p board.Period, id string) {
	k := p.String()
	if _, ok := m.period(p)[id]; !ok || m.places[k][id] != "" {
		return
	}
	if m.places[k] == nil {
		m.places[k], m.counts[k] = map[string]string{}, map[string]int{}
	}
	t := strconv.Itoa(min(m.tiers[id], 2))
	open := m.counts[k][t]
	if open == 0 || m.counts[k][t+"/"+strconv.Itoa(open)] >= m.size {
		open++
		m.counts[k][t] = open
	}
	c := t + "/" + strconv.Itoa(open)
	m.counts[k][c]++
	m.places[k][id] = c
}

// cohortPage is cohort c's standing in p, rows as segStoreRows writes them.
func (m *leagueModel) cohortPage(p board.Period, c string) []string {
	all, ranks := m.sorted(p)
	global := map[string]int{}
	for i, e := range all {
		global[e.id] = ranks[i]
	}
	in := map[string]*modelEntry{}
	for id, e := range m.period(p) {
		if m.places[p.String()][id] == c {
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

// TestLeagueModel applies random scores, removals, resets and period
// closes to Redis and to the model, for both orders, two tie-breaks,
// every rank style, with extra fields and a size cap, and compares after
// each: every day's tiers and cohorts, each cohort's standing (ranks
// within it and on the whole day) and every member's league.
func TestLeagueModel(t *testing.T) {
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
							League: &board.League{Kind: board.Daily, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: 3, Promote: 1, Relegate: 1}}
						switch variant {
						case "fields":
							def.Fields = []board.Field{{Name: "clears", Desc: true}}
						case "cap":
							def.Cap = 5
						}
						total.Add(int64(runLeagueModel(t, def, ops, uint64(len(name))*7919+uint64(ops))))
					})
				}
			}
		}
	}
	t.Cleanup(func() { t.Logf("%d random operations checked against the league model", total.Load()) })
}

func runLeagueModel(t *testing.T, def board.Board, ops int, seed uint64) int {
	f := newFixture(t)
	now := time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC)
	f.store.now = func() time.Time { return now }
	b := f.board(def)
	m := &leagueModel{model: &model{b: b, periods: map[string]map[string]*modelEntry{}}, size: 3,
		tiers: map[string]int{}, places: map[string]map[string]string{}, counts: map[string]map[string]int{}, periods: map[string]board.Period{}}
	rng := rand.New(rand.NewPCG(seed, 11))
	members := []string{"a", "b", "c", "d", "e", "f", "g", "ab", "Émile"}
	for _, id := range members {
		if tier := rng.IntN(5); tier > 0 { // 3 and 4: past the top tier, placed in it
			m.tiers[id] = tier
			if err := f.rdb.HSet(f.ctx, tierKey(b.ID), id, tier).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	current := func() []board.Period {
		return []board.Period{b.Current(board.Daily, now), b.Current(board.AllTime, now)}
	}
	for i := range ops {
		if rng.IntN(4) > 0 {
			now = now.Add(time.Duration(1+rng.IntN(900)) * time.Millisecond)
		}
		if rng.IntN(25) == 0 {
			now = now.Add(3 * time.Hour) // closes the day now and then
		}
		day := current()[0]
		m.periods[day.String()] = day
		id := members[rng.IntN(len(members))]
		switch what := rng.IntN(20); {
		case what < 15:
			op := []board.Op{board.Incr, board.Decr, board.Set, board.Best}[rng.IntN(4)]
			v := float64(rng.IntN(6))
			var fields []int64
			if len(b.Fields) > 0 && rng.IntN(2) == 0 {
				fields = []int64{int64(rng.IntN(2))}
			}
			if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: id, Score: v, Op: op, Fields: fields}, tester); err != nil {
				t.Fatalf("op %d: submit: %v", i, err)
			}
			m.submit(current(), id, v, op, fields, now)
			m.place(day, id)
		case what < 17:
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
		default:
			if _, err := f.store.ResetPeriod(f.ctx, b.ID, day, tester); err != nil {
				t.Fatal(err)
			}
			delete(m.model.periods, day.String())
			delete(m.places, day.String())
			delete(m.counts, day.String())
		}
		compareLeague(t, f, m, b, members, fmt.Sprintf("op %d", i))
	}
	return ops
}

func compareLeague(t *testing.T, f *fixture, m *leagueModel, b *board.Board, members []string, where string) {
	t.Helper()
	for _, key := range slices.Sorted(maps.Keys(m.periods)) {
		p := m.periods[key]
		tiers, err := f.store.LeagueTiers(f.ctx, b, p)
		if err != nil {
			t.Fatalf("%s: tiers of %s: %v", where, p, err)
		}
		var got, want []string
		for _, tr := range tiers {
			for _, c := range tr.Cohorts {
				got = append(got, fmt.Sprintf("%d/%d:%d", c.Tier, c.Cohort, c.Members))
			}
			for c := 1; c <= m.counts[key][strconv.Itoa(tr.Tier)]; c++ {
				want = append(want, fmt.Sprintf("%d/%d:%d", tr.Tier, c, m.counts[key][fmt.Sprintf("%d/%d", tr.Tier, c)]))
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: cohorts of %s\n got  %v\n want %v", where, p, got, want)
		}
		for _, tr := range tiers {
			for _, c := range tr.Cohorts {
				pg, err := f.store.CohortPage(f.ctx, b, p, c.Tier, c.Cohort, 0, 100)
				if err != nil {
					t.Fatal(err)
				}
				w := m.cohortPage(p, fmt.Sprintf("%d/%d", c.Tier, c.Cohort))
				if g := segStoreRows(b, pg); !slices.Equal(g, w) || pg.Total != len(w) {
					t.Fatalf("%s: %s cohort %d/%d (total %d)\n got  %v\n want %v", where, p, c.Tier, c.Cohort, pg.Total, g, w)
				}
			}
		}
		for _, id := range members {
			compareLeagueOf(t, f, m, b, p, id, where)
		}
	}
}

// compareLeagueOf checks a member's league in p: tier, cohort, size, rank.
func compareLeagueOf(t *testing.T, f *fixture, m *leagueModel, b *board.Board, p board.Period, id, where string) {
	t.Helper()
	lp, err := f.store.LeagueOf(f.ctx, b, p, id)
	if err != nil {
		t.Fatal(err)
	}
	c := m.places[p.String()][id]
	want := fmt.Sprintf("tier %d placed %v", min(m.tiers[id], 2), c != "")
	if c != "" {
		rows := m.cohortPage(p, c)
		rank := 0
		for _, r := range rows {
			var rk int
			var mid string
			_, _ = fmt.Sscanf(r, "%d %s", &rk, &mid)
			if mid == id {
				rank = rk
			}
		}
		want = fmt.Sprintf("tier %s placed true cohort %s of %d rank %d of %d", c[:1], c, m.counts[p.String()][c], rank, len(rows))
	}
	got := fmt.Sprintf("tier %d placed %v", lp.Tier, lp.Placed)
	if lp.Placed {
		got = fmt.Sprintf("tier %d placed true cohort %d/%d of %d rank %d of %d", lp.Tier, lp.Tier, lp.Cohort, lp.Size, lp.Standing.Rank, lp.Standing.Total)
	}
	if got != want || lp.TierName != b.League.Tiers[lp.Tier] {
		t.Fatalf("%s: %s of %s\n got  %s (%s)\n want %s", where, id, p, got, lp.TierName, want)
	}
}
