package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/redistest"
)

// results writes a period's results as "member:tier/cohort#rank move>next".
func results(rs []board.LeagueResult) string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s:%d/%d#%d %s>%d", r.Member, r.Tier, r.Cohort, r.Rank, r.Move, r.Next))
	}
	return strings.Join(out, " ")
}

// tiers reads the board's tier hash as "member=tier" sorted.
func (f *fixture) tiers(b *board.Board) string {
	f.t.Helper()
	m, err := f.rdb.HGetAll(f.ctx, tierKey(b.ID)).Result()
	if err != nil {
		f.t.Fatal(err)
	}
	return fmt.Sprint(m)
}

// TestLeagueClose: a week's close promotes the top of each cohort and
// relegates the bottom (ties at a boundary together, none past the top or
// bottom tier, a member placed but without a score counting below every
// player), once; a member who played the next week before the close moves
// to a cohort of its new tier there, its entry with it; closing a later
// week closes the earlier one first.
func TestLeagueClose(t *testing.T) {
	t.Parallel()
	leagueClose(t, newFixture(t))
}

// TestLeagueCloseEmbedded: the close runs on the embedded store too
// (miniredis, whose Lua is gopher-lua), as make run's archiver does.
func TestLeagueCloseEmbedded(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	c := newClock(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	leagueClose(t, &fixture{t: t, ctx: context.Background(), rdb: rdb, store: NewStore(rdb, WithClock(c.Now)), clock: c})
}

func leagueClose(t *testing.T, f *fixture) {
	b := f.leagueBoard(4, func(b *board.Board) { b.TieBreak = board.ByMember; b.League.Relegate = 2 })
	// Silver from the start: g h i j k.
	if err := f.rdb.HSet(f.ctx, tierKey(b.ID), "g", 1, "h", 1, "i", 1, "j", 1, "k", 1).Err(); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)) // week 47
	w47 := b.Current(board.Weekly, f.clock.Now())
	for _, w := range []struct {
		m string
		s float64
	}{{"a", 40}, {"b", 30}, {"c", 30}, {"d", 10}, {"e", 5}, {"g", 50}, {"h", 50}, {"i", 20}, {"j", 10}, {"k", 1}} {
		f.submit(b, w.m, w.s, board.Incr)
	}
	// j keeps its place in Silver 1 without a score: it counts below i.
	if _, err := f.store.RemoveMember(f.ctx, b.ID, "j", &w47, tester); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CloseLeague(f.ctx, b, w47); err == nil {
		t.Fatal("closed a week in progress")
	}
	// Week 48 starts; a (to be promoted) plays it before the close.
	f.clock.Set(w47.End.Add(30 * time.Second))
	w48 := w47.Next()
	f.submit(b, "a", 7, board.Incr)
	f.submit(b, "x", 3, board.Incr)
	if _, err := f.store.CloseLeague(f.ctx, b, w48); err == nil {
		t.Fatal("closed a week in progress")
	}
	closed, err := f.store.CloseLeague(f.ctx, b, w47)
	if err != nil || !closed {
		t.Fatalf("close: %v %v", closed, err)
	}
	rs, ok, err := f.store.LeagueResults(f.ctx, b, w47)
	if err != nil || !ok {
		t.Fatalf("results: %v %v", ok, err)
	}
	// Bronze 1: a b c d, a up (b and c tie second; c and d are the bottom
	// two, but Bronze is the lowest tier); Bronze 2: e alone, first, up.
	// Silver 1: g and h tie first, both up (Promote 1); i has one member
	// below it (j, placed without a score), fewer than Relegate 2: down; j
	// did not play and idle members keep their tier. Silver 2: k, up.
	want := "a:0/1#1 up>1 b:0/1#2 stay>0 c:0/1#2 stay>0 d:0/1#4 stay>0 e:0/2#1 up>1 " +
		"g:1/1#1 up>2 h:1/1#1 up>2 i:1/1#3 down>0 j:1/1#0 stay>1 k:1/2#1 up>2"
	if got := results(rs); got != want {
		t.Fatalf("results:\n got %s\nwant %s", got, want)
	}
	if got := f.tiers(b); got != "map[a:1 e:1 g:2 h:2 j:1 k:2]" {
		t.Fatalf("tiers: %s", got)
	}
	// a moved from Bronze 1 of week 48 to Silver 1, with its score; x stays.
	z48 := ZSetKey(b.ID, w48)
	if got := f.cohortRows(z48, "0/1"); got != "x=3" {
		t.Fatalf("Bronze 1 of week 48: %s", got)
	}
	if got := f.cohortRows(z48, "1/1"); got != "a=7" {
		t.Fatalf("Silver 1 of week 48: %s", got)
	}
	place, err := f.store.LeagueOf(f.ctx, b, w48, "a")
	if err != nil || place.TierName != "Silver" || place.Cohort != 1 || place.Standing.Rank != 1 {
		t.Fatalf("a in week 48: %+v %v", place, err)
	}
	// Once: a second close changes nothing.
	if closed, err := f.store.CloseLeague(f.ctx, b, w47); err != nil || closed {
		t.Fatalf("closed again: %v %v", closed, err)
	}
	if got := f.tiers(b); got != "map[a:1 e:1 g:2 h:2 j:1 k:2]" {
		t.Fatalf("tiers after a second close: %s", got)
	}
	cs, err := f.store.LeagueCloses(f.ctx, b)
	if err != nil || len(cs) != 1 || cs[0].Period != w47 || !cs[0].End.Equal(w47.End) {
		t.Fatalf("closes: %+v %v", cs, err)
	}
	// Closing week 49 closes week 48 first: a (Silver 1 there, alone,
	// first) goes up again, x (Bronze, alone) too.
	f.clock.Set(w48.End.Add(8 * 24 * time.Hour))
	if closed, err := f.store.CloseLeague(f.ctx, b, w48.Next()); err != nil || !closed {
		t.Fatalf("week 49: %v %v", closed, err)
	}
	if got := f.tiers(b); got != "map[a:2 e:1 g:2 h:2 j:1 k:2 x:1]" {
		t.Fatalf("tiers after week 48: %s", got)
	}
	if cs, err := f.store.LeagueCloses(f.ctx, b); err != nil || len(cs) != 3 || cs[1].Period != w48 {
		t.Fatalf("closes: %+v %v", cs, err)
	}
}

// TestLeagueCloseIdle: with IdleDrops, a member of a tier above the lowest
// who did not play drops one, and so does one placed without a score.
func TestLeagueCloseIdle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.leagueBoard(30, func(b *board.Board) { b.League.IdleDrops = true; b.League.Promote = 0; b.League.Relegate = 0 })
	if err := f.rdb.HSet(f.ctx, tierKey(b.ID), "away", 2, "gone", 1, "here", 2, "left", 1).Err(); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	w := b.Current(board.Weekly, f.clock.Now())
	f.submit(b, "here", 1, board.Incr)
	f.submit(b, "new", 1, board.Incr)
	f.submit(b, "left", 1, board.Incr)
	if _, err := f.store.RemoveMember(f.ctx, b.ID, "left", &w, tester); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(w.End)
	if closed, err := f.store.CloseLeague(f.ctx, b, w); err != nil || !closed {
		t.Fatalf("close: %v %v", closed, err)
	}
	rs, _, _ := f.store.LeagueResults(f.ctx, b, w)
	if got := results(rs); got != "new:0/1#1 stay>0 gone:1/0#0 down>0 left:1/1#0 down>0 away:2/0#0 down>1 here:2/1#1 stay>2" {
		t.Fatalf("results: %s", got)
	}
	if got := f.tiers(b); got != "map[away:1 here:2]" {
		t.Fatalf("tiers: %s", got)
	}
}

// TestLeagueCloseRace: two stores closing the same week at once apply it
// once (one says it closed it), and every member moves once.
func TestLeagueCloseRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.leagueBoard(3, nil)
	f.clock.Set(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	w := b.Current(board.Weekly, f.clock.Now())
	for i := range 10 {
		f.submit(b, fmt.Sprintf("m%02d", i), float64(i), board.Incr)
	}
	f.clock.Set(w.End.Add(time.Minute))
	other := NewStore(f.rdb, WithClock(f.clock.Now))
	var wg sync.WaitGroup
	got := make([]bool, 2)
	errs := make([]error, 2)
	for i, s := range []*Store{f.store, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = s.CloseLeague(f.ctx, b, w)
		}()
	}
	wg.Wait()
	if errors.Join(errs...) != nil || got[0] == got[1] {
		t.Fatalf("closes: %v %v", got, errs)
	}
	// Cohorts of 3: m00-m02, m03-m05, m06-m08, m09; each top one goes up.
	if got := f.tiers(b); got != "map[m02:1 m05:1 m08:1 m09:1]" {
		t.Fatalf("tiers: %s", got)
	}
}

// TestLeagueCloseOnCluster: outside writers' first scores (FCALL) place
// members, and the close reads and moves them, every key in the board's
// slot of a real Redis Cluster.
func TestLeagueCloseOnCluster(t *testing.T) {
	t.Parallel()
	cluster, err := redistest.StartCluster(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close) // after the board's own clean-up
	f := newFixture(t)
	f.store = NewStore(cluster.Client(t), WithClock(f.clock.Now))
	if err := f.store.LoadFunctions(f.ctx); err != nil {
		t.Fatal(err)
	}
	b := f.leagueBoard(2, nil)
	for i, m := range []string{"ann", "bob", "cy"} {
		if _, err := cluster.Client(t).FCall(f.ctx, "podium_submit", []string{defKey(b.ID)}, m, "incr", fmt.Sprint(10-i)).Text(); err != nil {
			t.Fatal(err)
		}
	}
	w := b.Current(board.Weekly, time.Now())
	f.clock.Set(w.End.Add(time.Minute))
	if closed, err := f.store.CloseLeague(f.ctx, b, w); err != nil || !closed {
		t.Fatalf("close: %v %v", closed, err)
	}
	rs, _, err := f.store.LeagueResults(f.ctx, b, w)
	if got := results(rs); err != nil || got != "ann:0/1#1 up>1 bob:0/1#2 stay>0 cy:0/2#1 up>1" {
		t.Fatalf("results: %s %v", got, err)
	}
	if tier, err := f.store.TierOf(f.ctx, b, "cy"); err != nil || tier != 1 {
		t.Fatalf("cy: %d %v", tier, err)
	}
	if err := f.store.DeleteBoard(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
}
