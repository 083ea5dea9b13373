package memberdata

import (
	"fmt"
	"testing"

	"podium/board"
)

// TestLeagueData: on a league board a member's copy holds its tier now
// and, latest first, what each archived close did to it; a member the
// league only knows from a close (idle) has a copy too; a board without a
// league, or a member in the lowest tier without results, shows none.
func TestLeagueData(t *testing.T) {
	backends(t, func(t *testing.T, f *fixture) {
		b, err := f.svc.Store.CreateBoard(f.ctx, board.Board{ID: "arena", Title: "Arena", Periods: []board.Kind{board.Weekly},
			League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, Promote: 1, Relegate: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Store.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Op: board.Incr, Score: 3}, root); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Store.Submit(f.ctx, b.ID, board.Submission{Member: "cy", Op: board.Incr, Score: 1}, root); err != nil {
			t.Fatal(err)
		}
		if err := f.rdb.HSet(f.ctx, "lb:{arena}:league:tier", "ann", 2).Err(); err != nil {
			t.Fatal(err)
		}
		db := f.svc.Archiver.DB
		for _, w := range []struct {
			period string
			rs     []board.LeagueResult
		}{
			{"week:2026-W44", []board.LeagueResult{{Member: "ann", Tier: 0, Cohort: 1, Rank: 1, Move: board.Up, Next: 1}, {Member: "bea", Tier: 1, Move: board.Stay, Next: 1}}},
			{"week:2026-W45", []board.LeagueResult{{Member: "ann", Tier: 1, Cohort: 2, Rank: 1, Move: board.Up, Next: 2}}},
		} {
			if err := db.PutLeagueResults(f.ctx, b.ID, w.period, w.rs); err != nil {
				t.Fatal(err)
			}
		}
		d, err := f.svc.Data(f.ctx, &b, "ann")
		if err != nil {
			t.Fatal(err)
		}
		if d.League == nil || d.League.Tier != "Gold" || fmt.Sprintf("%+v", d.League.Results) !=
			"[{Period:week:2026-W45 Title:Week 45, 2–8 Nov 2026 Tier:Silver Cohort:2 Rank:1 Move:up Next:Gold} {Period:week:2026-W44 Title:Week 44, 26 Oct – 1 Nov 2026 Tier:Bronze Cohort:1 Rank:1 Move:up Next:Silver}]" {
			t.Fatalf("ann's league: %+v", d.League)
		}
		if d, err := f.svc.Data(f.ctx, &b, "bea"); err != nil || d.League == nil || d.League.Tier != "Bronze" || len(d.League.Results) != 1 {
			t.Fatalf("bea's league: %+v %v", d.League, err)
		}
		if d, err := f.svc.Data(f.ctx, &b, "cy"); err != nil || d.League != nil {
			t.Fatalf("cy's league: %+v %v", d.League, err)
		}
		if _, err := f.svc.Data(f.ctx, &b, "nobody"); err == nil {
			t.Fatal("a member the league knows nothing of has data")
		}
		// bea, known only from a close, is erased: its result stays, under
		// its pseudonym.
		if out, err := f.svc.Erase(f.ctx, &b, "bea", board.Pseudonymise, root); err != nil || out.Status != board.ErasedNow {
			t.Fatalf("erase bea: %+v %v", out, err)
		}
		if _, err := f.svc.Data(f.ctx, &b, "bea"); err == nil {
			t.Fatal("bea has data after her erasure")
		}
		rs, _, err := db.LeagueResults(f.ctx, b.ID, "week:2026-W44")
		if err != nil || len(rs) != 2 || rs[0].Member != "ann" || rs[1].Member == "bea" || rs[1].Tier != 1 {
			t.Fatalf("W44's results after bea's erasure: %+v %v", rs, err)
		}
	})
}
