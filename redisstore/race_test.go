package redisstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"podium/board"
)

// raceModel is the race as the tests expect it: per period label, each
// member's score, and the points of the members in the top after a call.
type raceModel struct {
	higher bool
	scores map[string]map[string]float64
	points map[string][]board.RacePoint
}

// apply takes one call's items (applied in order) in period label at
// time at, and records a point for each member whose score changed and
// that stands in the top after the call, in the order the call first
// names them.
func (m *raceModel) apply(label string, at time.Time, subs []board.Submission) {
	sc := m.scores[label]
	if sc == nil {
		sc = map[string]float64{}
		m.scores[label] = sc
	}
	before := map[string]float64{}
	var order []string
	had := map[string]bool{}
	for _, s := range subs {
		if !slices.Contains(order, s.Member) {
			order = append(order, s.Member)
			before[s.Member], had[s.Member] = sc[s.Member], hasKey(sc, s.Member)
		}
		cur, ok := sc[s.Member]
		switch s.Op {
		case board.Incr:
			sc[s.Member] = cur + s.Score
		case board.Set:
			sc[s.Member] = s.Score
		case board.Best:
			if !ok || (m.higher && s.Score > cur) || (!m.higher && s.Score < cur) {
				sc[s.Member] = s.Score
			}
		}
	}
	for _, id := range order {
		v := sc[id]
		if had[id] && before[id] == v {
			continue
		}
		better := 0
		for _, o := range sc {
			if (m.higher && o > v) || (!m.higher && o < v) {
				better++
			}
		}
		if better < board.RaceTop {
			m.points[label] = append(m.points[label], board.RacePoint{At: at, Member: id, Score: v})
		}
	}
}

func hasKey(m map[string]float64, k string) bool { _, ok := m[k]; return ok }

// checkRace compares a race with the model's: the same members and
// scores in the same order, each at its call's time or within step after
// it (the tests' clock ticks a millisecond per reading).
func checkRace(t *testing.T, label string, got, want []board.RacePoint, step time.Duration) {
	t.Helper()
	line := func(pts []board.RacePoint) string {
		var out []string
		for _, pt := range pts {
			out = append(out, fmt.Sprintf("%s=%g", pt.Member, pt.Score))
		}
		return strings.Join(out, " ")
	}
	if line(got) != line(want) {
		t.Fatalf("race of %s:\n%s\nwant\n%s", label, line(got), line(want))
	}
	for i := range got {
		if got[i].At.Before(want[i].At) || !got[i].At.Before(want[i].At.Add(step)) {
			t.Fatalf("race of %s: point %d at %s, want its call's time %s", label, i, got[i].At, want[i].At)
		}
	}
}

func (f *fixture) points(b *board.Board, p board.Period) []board.RacePoint {
	f.t.Helper()
	pts, err := f.store.Race(f.ctx, b, p)
	if err != nil {
		f.t.Fatalf("race of %s: %v", p, err)
	}
	return pts
}

func (f *fixture) race(b *board.Board, p board.Period) []string {
	f.t.Helper()
	pts := f.points(b, p)
	var out []string
	for _, pt := range pts {
		out = append(out, fmt.Sprintf("%d %s=%g", pt.At.UnixMicro(), pt.Member, pt.Score))
	}
	return out
}

// The race records exactly the points the model expects over a few hundred
// random writes, single and in batches, on boards of either order, across
// day boundaries and a custom schedule's (each period's race apart, all
// time's whole).
func TestRaceMatchesModel(t *testing.T) {
	t.Parallel()
	for _, order := range []board.Order{board.HigherIsBetter, board.LowerIsBetter} {
		t.Run(string(order), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			b := f.board(board.Board{Order: order, Periods: []board.Kind{board.Daily, board.Custom, board.AllTime, board.Last24h},
				Schedule: "every 20h from 2026-11-22T00:00"})
			rng := rand.New(rand.NewPCG(7, uint64(len(order))))
			m := &raceModel{higher: order == board.HigherIsBetter, scores: map[string]map[string]float64{}, points: map[string][]board.RacePoint{}}
			ops := []board.Op{board.Incr, board.Set, board.Best}
			start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
			labels := map[string]board.Period{}
			for i := range 300 {
				now := start.Add(time.Duration(i) * 11 * time.Minute)
				f.at(now)
				var subs []board.Submission
				for range 1 + rng.IntN(3)*rng.IntN(2) { // mostly single writes, some batches
					subs = append(subs, board.Submission{Member: fmt.Sprintf("m%02d", rng.IntN(25)), Op: ops[rng.IntN(3)], Score: float64(rng.IntN(50))})
				}
				if len(subs) == 1 {
					f.submit(b, subs[0].Member, subs[0].Score, subs[0].Op)
				} else if _, err := f.store.SubmitBatch(f.ctx, b.ID, subs, board.BatchOptions{By: tester}); err != nil {
					t.Fatal(err)
				}
				for _, k := range []board.Kind{board.Daily, board.Custom, board.AllTime} {
					p := b.Current(k, now)
					labels[p.String()] = p
					m.apply(p.String(), now, subs)
				}
			}
			if len(labels) < 7 {
				t.Fatalf("the writes span %d periods, want days apart", len(labels))
			}
			for label, p := range labels {
				checkRace(t, label, f.points(b, p), m.points[label], 11*time.Minute)
			}
			if pts := f.race(b, b.Current(board.Last24h, f.clock.Now())); len(pts) != 0 {
				t.Fatalf("a rolling window has a race: %v", pts)
			}
		})
	}
}

// An erasure renames the member's points (pseudonymise) or takes them out
// of the open periods (remove); a reset empties its period's race, and a
// frozen board's public sees the points made before the freeze only.
func TestRaceEraseResetFreeze(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime}})
	f.write(b, "ann", board.Incr, 5)
	f.write(b, "bob", board.Incr, 7)
	f.write(b, "cat", board.Incr, 9)
	f.write(b, "ann", board.Incr, 5)
	week := b.Current(board.Weekly, f.clock.Now())
	all := b.Current(board.AllTime, f.clock.Now())
	members := func(p board.Period) string {
		var out []string
		for _, l := range f.race(b, p) {
			_, mv, _ := strings.Cut(l, " ")
			out = append(out, mv)
		}
		return strings.Join(out, " ")
	}
	if got := members(week); got != "ann=5 bob=7 cat=9 ann=10" {
		t.Fatalf("race %q", got)
	}
	pseudo, _ := f.erase(b, "bob", board.Pseudonymise)
	if got, want := members(week), "ann=5 "+pseudo+"=7 cat=9 ann=10"; got != want {
		t.Fatalf("after pseudonymising bob: %q, want %q", got, want)
	}
	f.erase(b, "ann", board.RemoveMember)
	if got, want := members(all), pseudo+"=7 cat=9"; got != want {
		t.Fatalf("after removing ann: %q, want %q", got, want)
	}
	if _, err := f.store.ResetPeriod(f.ctx, b.ID, week, tester); err != nil {
		t.Fatal(err)
	}
	if got := members(week); got != "" {
		t.Fatalf("after the reset: %q", got)
	}
	if got := members(all); got == "" {
		t.Fatal("a reset of the week emptied all time's race")
	}

	// A freeze: the public sees the race up to it, admins and the reveal all of it.
	f.at(f.clock.Now().Add(time.Minute))
	fb, err := f.store.Freeze(f.ctx, b.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	f.at(f.clock.Now().Add(time.Minute))
	f.write(b, "dan", board.Incr, 50)
	pub, err := f.store.Race(f.ctx, &fb, all)
	if err != nil || len(pub) != 2 {
		t.Fatalf("public race while frozen: %v %v", pub, err)
	}
	live, err := f.store.Race(LiveStandings(f.ctx), &fb, all)
	if err != nil || len(live) != 3 || live[2].Member != "dan" {
		t.Fatalf("admins' race while frozen: %v %v", live, err)
	}
	rb, err := f.store.Unfreeze(f.ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if pts, err := f.store.Race(f.ctx, &rb, all); err != nil || len(pts) != 3 {
		t.Fatalf("race after the reveal: %v %v", pts, err)
	}
}

// Outside writers' FCALL podium_submit records the race as the app's
// writes do: it runs the same script.
func TestRaceFunction(t *testing.T) {
	f := realFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}})
	for _, w := range [][2]string{{"ann", "3"}, {"bob", "4"}, {"ann", "6"}} {
		if _, err := fcall(f.ctx, f.rdb, b, w[0], "incr", w[1]); err != nil {
			t.Fatalf("fcall %s: %v", w[0], err)
		}
	}
	if got := strings.Join(f.race(b, b.Current(board.AllTime, time.Now())), " "); !strings.HasSuffix(got, " ann=9") || strings.Count(got, "=") != 3 {
		t.Fatalf("race after FCALL writes: %q", got)
	}
}

// A period's race keeps its last 2,000 points, the newest last.
func TestRaceCapped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}})
	const writes = 2050
	subs := make([]board.Submission, 0, writes)
	for i := range writes {
		subs = append(subs, board.Submission{Member: "ann", Op: board.Set, Score: float64(i + 1)})
	}
	for _, s := range subs { // one call each: a call records one point per member
		if _, err := f.store.Submit(f.ctx, b.ID, s, tester); err != nil {
			t.Fatal(err)
		}
	}
	pts := f.points(b, b.Current(board.AllTime, f.clock.Now()))
	if len(pts) != 2000 || pts[0].Score != writes-1999 || pts[1999].Score != writes {
		t.Fatalf("%d points, from %v to %v", len(pts), pts[0], pts[len(pts)-1])
	}
}

// A frozen board's public race is the race at the freeze: writes after it
// push points past the cap, but the public still sees the oldest points
// it had (how many were trimmed would count the hidden writes), and an
// erasure during the freeze renames the member in that copy too.
func TestRaceFrozenCapHidesLaterWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}})
	all := b.Current(board.AllTime, f.clock.Now())
	for i := range 2000 {
		if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Op: board.Set, Score: float64(i + 1)}, tester); err != nil {
			t.Fatal(err)
		}
	}
	f.at(f.clock.Now().Add(time.Minute))
	fb, err := f.store.Freeze(f.ctx, b.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	f.at(f.clock.Now().Add(time.Minute))
	for range 5 {
		f.write(&fb, "bob", board.Incr, 1)
	}
	pub, err := f.store.Race(f.ctx, &fb, all)
	if err != nil || len(pub) != 2000 || pub[0].Score != 1 {
		t.Fatalf("public race while frozen: %d points from %v, %v", len(pub), pub[0], err)
	}
	live, err := f.store.Race(LiveStandings(f.ctx), &fb, all)
	if err != nil || len(live) != 2000 || live[len(live)-1].Member != "bob" {
		t.Fatalf("admins' race while frozen: %d points, %v", len(live), err)
	}
	pseudo, _ := f.erase(&fb, "ann", board.Pseudonymise)
	pub, err = f.store.Race(f.ctx, &fb, all)
	if err != nil || len(pub) != 2000 || pub[0].Member != pseudo || pub[1999].Member != pseudo {
		t.Fatalf("public race after erasing ann while frozen: %d points, %v, %v", len(pub), pub[0], err)
	}
}
