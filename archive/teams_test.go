package archive

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// fixtureTeams is how many teams a team fixture has: more than a page of
// the copy.
const fixtureTeams = testPage + testPage/10

// newTeamFixture makes a weekly team board on a fresh Redis database, with
// fixtureMembers members in the week of 2026-11-16 (2026-W47) and
// fixtureTeams teams (more than a page of the copy) of one to three members
// each, every seventh member in none: team scores tie often, and averages of
// three are not whole numbers.
func newTeamFixture(t *testing.T, db *DB, mode board.TeamMode, style board.RankStyle, order board.Order) *fixture {
	t.Helper()
	def := board.Board{ID: "league", Title: "League", Periods: []board.Kind{board.Weekly, board.AllTime},
		Order: order, RankStyle: style, Teams: mode, Retention: board.DefaultRetention}
	return newFixtureWith(t, db, def, func(i int, sub *board.Submission) {
		if i%7 != 0 {
			sub.Team = fmt.Sprintf("t%04d", i%fixtureTeams)
		}
	})
}

// teamReads is every read of a period's team standing that people and the
// API make: its pages, a window, the teams' member counts, the live hub's
// view, and one team's members.
type teamReads struct {
	Pages   []board.Page
	Window  board.Page
	Sizes   []int
	Views   []redisstore.ViewResult
	Members []board.Standing
}

func readTeams(t *testing.T, s *redisstore.Store, b *board.Board, p board.Period) teamReads {
	t.Helper()
	ctx := context.Background()
	var r teamReads
	for off := 0; ; off += testPage {
		pg, err := s.TeamPage(ctx, b, p, off, testPage)
		if err != nil {
			t.Fatal(err)
		}
		r.Pages = append(r.Pages, pg)
		if off+testPage >= pg.Total {
			break
		}
	}
	var err error
	if r.Window, err = s.TeamPage(ctx, b, p, fixtureTeams-5, 10); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range r.Pages[0].Entries {
		ids = append(ids, e.Member)
	}
	if r.Sizes, err = s.TeamSizes(ctx, b, p, append(ids, "no-such-team")); err != nil {
		t.Fatal(err)
	}
	r.Views = s.ReadViews(ctx, []redisstore.ViewQuery{{Board: b, Period: p, Offset: 40, Limit: 25, Teams: true}})
	if r.Views[0].Err != nil {
		t.Fatal(r.Views[0].Err)
	}
	if r.Members, err = s.TeamMembers(ctx, b, p, "t0001"); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTeamStandingsOutliveRedis: a team board's closed week, archived and
// expired from Redis, shows the same team standing from the archive as it
// did from Redis (ranks, ties, averages, member counts), in each team mode
// and rank style, on both databases.
func TestTeamStandingsOutliveRedis(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		for _, c := range []struct {
			mode  board.TeamMode
			style board.RankStyle
			order board.Order
		}{{board.TeamsSum, board.Competition, board.HigherIsBetter}, {board.TeamsAverage, board.Dense, board.HigherIsBetter}, {board.TeamsBest, board.Ordinal, board.LowerIsBetter}} {
			t.Run(fmt.Sprintf("%s-%s-%s", c.mode, c.style, c.order), func(t *testing.T) {
				f := newTeamFixture(t, db, c.mode, c.style, c.order)
				w := f.week()
				f.clock.Set(w.End.Add(2 * time.Hour))
				before := readTeams(t, f.store, &f.b, w)
				if total := before.Pages[0].Total; total != fixtureTeams || len(before.Pages) != 2 {
					t.Fatalf("%d teams in %d pages, want %d in 2", total, len(before.Pages), fixtureTeams)
				}
				tied, fraction := false, false
				for _, pg := range before.Pages {
					for i, e := range pg.Entries {
						tied = tied || (i > 0 && pg.Entries[i-1].Score == e.Score)
						fraction = fraction || e.Score != math.Trunc(e.Score)
					}
				}
				if !tied || fraction != (c.mode == board.TeamsAverage) {
					t.Fatalf("the standing has ties: %v, fractions: %v", tied, fraction)
				}
				f.b.Retention = 0
				var err error
				if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
					t.Fatal(err)
				}
				f.a.Linger = time.Millisecond
				if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
					t.Fatalf("final pass: %d %v", n, err)
				}
				waitGone(t, f, w)
				if n, err := f.store.Client().Exists(f.ctx, redisstore.HashTag(f.b.ID)+":w:"+w.Key+":t").Result(); err != nil || n != 0 {
					t.Fatalf("the week's team standing is still in Redis: %d %v", n, err)
				}
				after := readTeams(t, f.store, &f.b, w)
				if !reflect.DeepEqual(before, after) {
					diffTeams(t, before, after)
				}
				// The archive holds averages as Redis kept them, unrounded:
				// each times its members is a whole sum again.
				rows, err := db.Past().TeamRows(f.ctx, f.b.ID, w.String(), 0, 2000)
				if err != nil || len(rows) != fixtureTeams {
					t.Fatalf("%d archived teams: %v", len(rows), err)
				}
				ids := make([]string, len(rows))
				for i, r := range rows {
					ids[i] = r.Member
				}
				sizes, err := db.Past().TeamSizes(f.ctx, f.b.ID, w.String(), ids)
				if err != nil || len(sizes) != fixtureTeams {
					t.Fatalf("%d sizes: %v", len(sizes), err)
				}
				for _, r := range rows {
					n := float64(sizes[r.Member])
					if c.mode != board.TeamsAverage {
						n = 1
					}
					if sum := r.Score * n; n < 1 || math.Abs(sum-math.Round(sum)) > 1e-9 {
						t.Fatalf("archived team %+v of %v members: not as Redis kept it", r, n)
					}
				}
			})
		}
	})
}

// diffTeams names the first team read that differs.
func diffTeams(t *testing.T, before, after teamReads) {
	t.Helper()
	for i := range min(len(before.Pages), len(after.Pages)) {
		x, y := before.Pages[i], after.Pages[i]
		for j := range min(len(x.Entries), len(y.Entries)) {
			if !reflect.DeepEqual(x.Entries[j], y.Entries[j]) {
				t.Fatalf("page %d row %d:\nRedis   %+v\narchive %+v", i, j, x.Entries[j], y.Entries[j])
			}
		}
	}
	for _, f := range []struct {
		name string
		x, y any
	}{{"Pages", before.Pages, after.Pages}, {"Window", before.Window, after.Window}, {"Sizes", before.Sizes, after.Sizes},
		{"Views", before.Views, after.Views}, {"Members", before.Members, after.Members}} {
		if !reflect.DeepEqual(f.x, f.y) {
			t.Fatalf("%s differ:\nRedis   %.800s\narchive %.800s", f.name, fmt.Sprintf("%+v", f.x), fmt.Sprintf("%+v", f.y))
		}
	}
}

// TestTeamMovesCopyAgain: a team move or a change of team mode changes the
// team standing of the closed weeks Redis still holds: the next pass
// copies them again, so the archive never keeps a standing Redis no longer
// shows, and what expires is the latest.
func TestTeamMovesCopyAgain(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newTeamFixture(t, db, board.TeamsSum, board.Competition, board.HigherIsBetter)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		f.sameTeams(t, w)
		// p0039 scored 39 in t0039; it moves to t0001 after the week closed.
		if _, changed, err := f.store.SetTeam(f.ctx, f.b.ID, "p0039", "t0001", board.Author{Actor: "test"}); err != nil || !changed {
			t.Fatalf("move: %v %v", changed, err)
		}
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("pass after a move: %d %v", n, err)
		}
		f.sameTeams(t, w)
		// Another mode: rebuilt in Redis, copied again.
		f.b.Teams = board.TeamsBest
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("pass after a mode change: %d %v", n, err)
		}
		f.sameTeams(t, w)
		// A move of a member with no score in the week changes nothing there.
		if _, err := f.store.Submit(f.ctx, f.b.ID, board.Submission{Member: "new", Score: 1, Team: "t0002"}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.store.SetTeam(f.ctx, f.b.ID, "new", "t0003", board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		if n, err := f.a.Due(f.ctx); err != nil || n != 0 {
			t.Fatalf("pass after a move outside the week: %d %v", n, err)
		}
		// Expired, it keeps what it was archived with: moves no longer reach it.
		before := readTeams(t, f.store, &f.b, w)
		f.b.Retention = 0
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.a.Linger = time.Millisecond
		if _, err := f.a.Due(f.ctx); err != nil {
			t.Fatal(err)
		}
		waitGone(t, f, w)
		if _, _, err := f.store.SetTeam(f.ctx, f.b.ID, "p0038", "t0001", board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		after := readTeams(t, f.store, &f.b, w)
		// A team's page lists its current members, with their archived
		// ranks: p0038 joined t0001 since.
		joined := false
		for _, st := range after.Members {
			joined = joined || (st.Member == "p0038" && st.Ranked && st.Score == 38)
		}
		if !joined || len(after.Members) != len(before.Members)+1 {
			t.Fatalf("t0001's members after the move: %+v", after.Members)
		}
		after.Members = before.Members
		if !reflect.DeepEqual(before, after) {
			diffTeams(t, before, after)
		}
	})
}

// sameTeams checks the archive holds exactly the team standing Redis
// shows for a period (admins' view), member counts included.
func (f *fixture) sameTeams(t *testing.T, p board.Period) {
	t.Helper()
	live := redisstore.LiveStandings(f.ctx)
	pg, err := f.store.TeamPage(live, &f.b, p, 0, testPage)
	if err != nil {
		t.Fatal(err)
	}
	for off := testPage; off < pg.Total; off += testPage {
		more, err := f.store.TeamPage(live, &f.b, p, off, testPage)
		if err != nil {
			t.Fatal(err)
		}
		pg.Entries = append(pg.Entries, more.Entries...)
	}
	rows, err := f.a.DB.Past().TeamRows(f.ctx, f.b.ID, p.String(), 0, pg.Total+10)
	if err != nil {
		t.Fatal(err)
	}
	n, _, held, err := f.a.DB.Past().TeamHeld(f.ctx, f.b.ID, p.String())
	if err != nil || !held || n != pg.Total || len(rows) != pg.Total {
		t.Fatalf("the archive holds %d teams (%d rows, held %v, %v); Redis %d", n, len(rows), held, err, pg.Total)
	}
	ids := make([]string, len(pg.Entries))
	for i, e := range pg.Entries {
		ids[i] = e.Member
	}
	sizes, err := f.store.TeamSizes(live, &f.b, p, ids)
	if err != nil {
		t.Fatal(err)
	}
	held2, err := f.a.DB.Past().TeamSizes(f.ctx, f.b.ID, p.String(), ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range pg.Entries {
		if r := rows[i]; r.Position != e.Position || r.Rank != e.Rank || r.Member != e.Member || r.Name != e.Name || r.Score != e.Score || held2[e.Member] != sizes[i] {
			t.Fatalf("team %d: archive %+v (%d members), Redis %+v (%d)", i, r, held2[e.Member], e, sizes[i])
		}
	}
}
