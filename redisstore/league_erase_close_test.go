package redisstore

import (
	"strings"
	"testing"
	"time"

	"podium/board"
)

// TestEraseDuringLeagueClose: an erasure that lands while a close is under
// way (it works out the results, stages them a chunk at a time, saves
// them, then applies the moves a chunk at a time, each a step of its own)
// leaves no trace of the erased id: not in the saved results, not in the
// tier hash, whichever step it lands between.
func TestEraseDuringLeagueClose(t *testing.T) {
	t.Parallel()
	for _, between := range []string{"outcome and stage", "stage and save", "save and apply"} {
		t.Run(strings.ReplaceAll(between, " ", "-"), func(t *testing.T) {
			f := newFixture(t)
			b := f.leagueBoard(3, nil)
			f.clock.Set(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)) // week 47
			w47 := b.Current(board.Weekly, f.clock.Now())
			for _, m := range []string{"a", "b", "c"} {
				f.submit(b, m, float64(len(m)+strings.Index("abc", m)), board.Set)
			}
			f.clock.Set(w47.End.Add(time.Minute))
			erase := func() { f.erase(b, "c", board.RemoveMember) } // c leads its cohort: up
			rs, err := f.store.leagueOutcome(f.ctx, b, b.League, w47)
			if err != nil {
				t.Fatal(err)
			}
			if between == "outcome and stage" {
				erase()
			}
			staged, err := f.store.stageResults(f.ctx, b, w47, rs)
			if err != nil {
				t.Fatal(err)
			}
			if between == "stage and save" {
				erase()
			}
			if err := f.store.closeStep(b, w47, "save", staged).run(f.ctx, f.rdb).Err(); err != nil {
				t.Fatal(err)
			}
			saved, _, err := f.store.LeagueResults(f.ctx, b, w47)
			if err != nil {
				t.Fatal(err)
			}
			if between == "save and apply" {
				erase()
			}
			if err := f.store.applyMoves(f.ctx, b, w47, saved); err != nil {
				t.Fatal(err)
			}
			after, _, err := f.store.LeagueResults(f.ctx, b, w47)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range after {
				if r.Member == "c" {
					t.Errorf("the saved results name the erased member: %s", results(after))
				}
			}
			if f.rdb.HExists(f.ctx, tierKey(b.ID), "c").Val() { // not strings.Contains: a pseudonym may end in c
				t.Errorf("the tiers name the erased member: %s", f.tiers(b))
			}
		})
	}
}
