package redisstore

import (
	"testing"
	"time"

	"podium/board"
)

// TestLeagueTierAtFreeze: a league week that closes while its board is
// frozen moves members' tiers (the close reads the live standings), but
// the public goes on seeing each member's tier as it stood at the freeze
// until the reveal, so that no promotion gives away the hidden standings;
// an admin's read sees the tier the close gave.
func TestLeagueTierAtFreeze(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.leagueBoard(2, nil)
	f.clock.Set(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)) // week 47
	w47 := b.Current(board.Weekly, f.clock.Now())
	f.submit(b, "a", 10, board.Set)
	f.submit(b, "b", 20, board.Set)
	if _, err := f.store.Freeze(f.ctx, b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	fb, err := f.store.Board(f.ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	f.submit(b, "a", 30, board.Set) // after the freeze: a leads, unseen
	f.clock.Set(w47.End.Add(time.Minute))
	if closed, err := f.store.CloseLeague(f.ctx, &fb, w47); err != nil || !closed {
		t.Fatalf("close: %v %v", closed, err)
	}
	w48 := w47.Next()
	for _, c := range []struct {
		read func() (board.LeaguePlace, error)
		who  string
		want string
	}{
		{func() (board.LeaguePlace, error) { return f.store.LeagueOf(f.ctx, &fb, w48, "a") }, "public, a in week 48", "Bronze"},
		{func() (board.LeaguePlace, error) { return f.store.LeagueOf(f.ctx, &fb, w48, "b") }, "public, b in week 48", "Bronze"},
		{func() (board.LeaguePlace, error) { return f.store.LeagueOf(LiveStandings(f.ctx), &fb, w48, "a") }, "admin, a in week 48", "Silver"},
	} {
		lp, err := c.read()
		if err != nil || lp.TierName != c.want {
			t.Errorf("%s: %+v %v, want %s", c.who, lp, err, c.want)
		}
	}
	if got, err := f.store.TiersOf(f.ctx, &fb, []string{"a", "b"}); err != nil || got[0] != 0 || got[1] != 0 {
		t.Errorf("public tiers of a and b: %v %v, want [0 0]", got, err)
	}
	if got, err := f.store.TierOf(f.ctx, &fb, "a"); err != nil || got != 0 {
		t.Errorf("public tier of a: %v %v, want 0", got, err)
	}
	// The copy holds a member an erasure removes as the live tiers do, and
	// goes with the freeze.
	if err := f.rdb.HSet(f.ctx, frozenTierKey(b.ID), "a", 2).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.EraseMember(f.ctx, b.ID, Erasure{Member: "a", Pseudonym: board.NewPseudonym(), Mode: board.RemoveMember, By: tester}); err != nil {
		t.Fatal(err)
	}
	if n, err := f.rdb.HExists(f.ctx, frozenTierKey(b.ID), "a").Result(); err != nil || n {
		t.Errorf("the freeze's tiers keep an erased member: %v %v", n, err)
	}
	if _, err := f.store.Unfreeze(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if ttl, err := f.rdb.PTTL(f.ctx, frozenTierKey(b.ID)).Result(); err != nil || ttl <= 0 || ttl > freezeLinger {
		t.Errorf("the freeze's tiers after the reveal: ttl %v %v", ttl, err)
	}
}
