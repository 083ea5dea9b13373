package redisstore

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"podium/board"
)

// leagueBoard makes a weekly league board of tiers Bronze, Silver, Gold
// with cohorts of size.
func (f *fixture) leagueBoard(size int, mod func(*board.Board)) *board.Board {
	f.t.Helper()
	def := board.Board{Periods: []board.Kind{board.Weekly, board.AllTime},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: size, Promote: 1, Relegate: 1}}
	if mod != nil {
		mod(&def)
	}
	return f.board(def)
}

// cohortRows reads cohort c ("<tier>/<cohort>") of zset z as it is kept in
// Redis: "member=score" in order.
func (f *fixture) cohortRows(z, c string) string {
	f.t.Helper()
	got, err := f.rdb.ZRevRangeWithScores(f.ctx, z+":g:L:"+c, 0, -1).Result()
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, e := range got {
		out = append(out, fmt.Sprintf("%s=%g", e.Member.(string)[strings.IndexByte(e.Member.(string), '|')+1:], e.Score))
	}
	return strings.Join(out, " ")
}

// TestLeaguePlacement: a member's first score of a week places it in the
// open cohort of its tier (Bronze unless its tier says otherwise), cohorts
// filling in order; all time places nobody; the cohort's standing follows
// scores, removals (the place stays) and resets (places go); an erasure
// renames the member's place and tier; deleting the board drops its tiers.
func TestLeaguePlacement(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.leagueBoard(2, nil)
	if err := f.rdb.HSet(f.ctx, tagOf(b.ID)+":league:tier", "gil", "2", "hal", "9").Err(); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"ann", "bob", "cy", "gil", "hal"} {
		f.submit(b, m, float64(len(m)*10+int(m[0]-'a')), board.Incr)
	}
	f.submit(b, "bob", 100, board.Incr)
	z := ZSetKey(b.ID, b.Current(board.Weekly, f.clock.Now()))
	places, _ := f.rdb.HGetAll(f.ctx, z+":L").Result()
	if got := fmt.Sprint(places); got != "map[ann:0/1 bob:0/1 cy:0/2 gil:2/1 hal:2/1]" {
		t.Fatalf("places: %s", got)
	}
	counts, _ := f.rdb.HGetAll(f.ctx, z+":Ln").Result()
	if got := fmt.Sprint(counts); got != "map[0:2 0/1:2 0/2:1 2:1 2/1:2]" {
		t.Fatalf("counts: %s", got)
	}
	if got := f.cohortRows(z, "0/1"); got != "bob=131 ann=30" {
		t.Fatalf("Bronze 1: %s", got)
	}
	if got := f.cohortRows(z, "2/1"); got != "hal=37 gil=36" {
		t.Fatalf("Gold 1: %s", got)
	}
	if n, _ := f.rdb.Exists(f.ctx, ZSetKey(b.ID, board.Period{Kind: board.AllTime})+":L").Result(); n != 0 {
		t.Fatal("all time places members")
	}
	if _, err := f.store.RemoveMember(f.ctx, b.ID, "bob", nil, tester); err != nil {
		t.Fatal(err)
	}
	if got := f.cohortRows(z, "0/1"); got != "ann=30" {
		t.Fatalf("Bronze 1 after bob's removal: %s", got)
	}
	f.submit(b, "bob", 5, board.Incr)
	f.submit(b, "dee", 5, board.Incr)
	if got := f.cohortRows(z, "0/1") + " | " + f.cohortRows(z, "0/2"); got != "ann=30 bob=5 | cy=22 dee=5" {
		t.Fatalf("bob back in his cohort, dee fills the open one: %s", got)
	}
	if _, err := f.store.EraseMember(f.ctx, b.ID, Erasure{Member: "hal", Pseudonym: board.ErasedPrefix + "x1", Mode: board.Pseudonymise, By: tester}); err != nil {
		t.Fatal(err)
	}
	if got := f.cohortRows(z, "2/1"); got != board.ErasedPrefix+"x1=37 gil=36" {
		t.Fatalf("Gold 1 after hal's erasure: %s", got)
	}
	if got, _ := f.rdb.HGet(f.ctx, z+":L", board.ErasedPrefix+"x1").Result(); got != "2/1" {
		t.Fatalf("the pseudonym's place: %q", got)
	}
	if got, _ := f.rdb.HGetAll(f.ctx, tagOf(b.ID)+":league:tier").Result(); fmt.Sprint(got) != "map["+board.ErasedPrefix+"x1:9 gil:2]" {
		t.Fatalf("tiers after the erasure: %v", got)
	}
	if _, err := f.store.ResetPeriod(f.ctx, b.ID, b.Current(board.Weekly, f.clock.Now()), tester); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.rdb.Exists(f.ctx, z+":L", z+":Ln", z+":g:L:0/1", z+":gs").Result(); n != 0 {
		t.Fatalf("%d league keys left after a reset", n)
	}
	if err := f.store.DeleteBoard(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.rdb.Exists(f.ctx, tagOf(b.ID)+":league:tier").Result(); n != 0 {
		t.Fatal("tiers left after the board's deletion")
	}
}

// TestLeaguePlacementConcurrent: 95 new members scoring at once (group
// commit, several replicas' worth of stores) fill cohorts of 30 exactly:
// 30, 30, 30, 5, each member in one.
func TestLeaguePlacementConcurrent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.leagueBoard(0, nil)
	stores := []*Store{f.store, NewStore(f.rdb, WithClock(f.clock.Now))}
	var wg sync.WaitGroup
	for i := range 95 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := stores[i%2].Submit(f.ctx, b.ID, board.Submission{Member: fmt.Sprintf("m%02d", i), Score: float64(i), Op: board.Incr}, tester); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	z := ZSetKey(b.ID, b.Current(board.Weekly, f.clock.Now()))
	counts, _ := f.rdb.HGetAll(f.ctx, z+":Ln").Result()
	if got := fmt.Sprint(counts); got != "map[0:4 0/1:30 0/2:30 0/3:30 0/4:5]" {
		t.Fatalf("counts: %s", got)
	}
	total := 0
	for c := 1; c <= 4; c++ {
		n, _ := f.rdb.ZCard(f.ctx, fmt.Sprintf("%s:g:L:0/%d", z, c)).Result()
		total += int(n)
	}
	if places, _ := f.rdb.HLen(f.ctx, z+":L").Result(); total != 95 || places != 95 {
		t.Fatalf("%d in the standings, %d places", total, places)
	}
}

// TestLeagueFunctionPlaces: FCALL podium_submit places a member and keeps
// its cohort's standing as the API does.
func TestLeagueFunctionPlaces(t *testing.T) {
	f := realFixture(t)
	b := f.leagueBoard(0, nil)
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "incr", "7"); err != nil {
		t.Fatal(err)
	}
	z := ZSetKey(b.ID, b.Current(board.Weekly, f.store.Now()))
	if got := f.cohortRows(z, "0/1"); got != "ann=7" {
		t.Fatalf("Bronze 1: %q", got)
	}
}
