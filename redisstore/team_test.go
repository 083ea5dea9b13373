package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"podium/board"
)

func (f *fixture) teams(b *board.Board, k board.Kind) string {
	f.t.Helper()
	pg, err := f.store.TeamPage(f.ctx, b, b.Current(k, f.clock.Now()), 0, 50)
	if err != nil {
		f.t.Fatalf("teams of %s: %v", k, err)
	}
	var out []string
	for _, e := range pg.Entries {
		out = append(out, fmt.Sprintf("%s=%g@%d", e.Member, e.Score, e.Rank))
	}
	return strings.Join(out, " ")
}

func (f *fixture) join(b *board.Board, member, team string, op board.Op, v float64) {
	f.t.Helper()
	if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: member, Team: team, Op: op, Score: v}, tester); err != nil {
		f.t.Fatalf("submit %s (%s): %v", member, team, err)
	}
}

// A sum team board: team scores follow every write, a move takes a member's
// scores along in every period, a removal takes them away.
func TestTeamsSum(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime}, Teams: board.TeamsSum})
	f.join(b, "ann", "red", board.Incr, 10)
	f.join(b, "bob", "red", board.Incr, 5)
	f.join(b, "cat", "blue", board.Incr, 12)
	f.write(b, "dan", board.Incr, 40) // in no team
	if got, want := f.teams(b, board.Weekly), "red=15@1 blue=12@2"; got != want {
		t.Fatalf("teams: %s, want %s", got, want)
	}
	f.write(b, "cat", board.Incr, 3) // a write without a team keeps cat's
	// Tied teams keep Redis' order of ids, as members do with the member
	// tie-break (read in reverse on higher-is-better boards).
	if got, want := f.teams(b, board.AllTime), "red=15@1 blue=15@1"; got != want {
		t.Fatalf("tied teams: %s, want %s", got, want)
	}
	left, changed, err := f.store.SetTeam(f.ctx, b.ID, "ann", "blue", tester)
	if err != nil || left != "red" || !changed {
		t.Fatalf("move: %q %v %v", left, changed, err)
	}
	if got, want := f.teams(b, board.Weekly), "blue=25@1 red=5@2"; got != want {
		t.Fatalf("after the move: %s, want %s", got, want)
	}
	sizes, err := f.store.TeamSizes(f.ctx, b, b.Current(board.Weekly, f.clock.Now()), []string{"blue", "red", "green"})
	if err != nil || fmt.Sprint(sizes) != "[2 1 0]" {
		t.Fatalf("sizes %v %v", sizes, err)
	}
	if _, err := f.store.RemoveMember(f.ctx, b.ID, "bob", nil, tester); err != nil {
		t.Fatal(err)
	}
	if got, want := f.teams(b, board.Weekly), "blue=25@1"; got != want {
		t.Fatalf("after removing red's last member: %s, want %s", got, want)
	}
	if team, _ := f.store.TeamOf(f.ctx, b, "bob"); team != "" {
		t.Fatalf("bob removed from every period is still in %q", team)
	}
	if ts, _ := f.store.Teams(f.ctx, b); fmt.Sprint(ts) != "[blue]" {
		t.Fatalf("teams %v", ts)
	}
	sts, err := f.store.TeamMembers(f.ctx, b, b.Current(board.Weekly, f.clock.Now()), "blue")
	if err != nil || len(sts) != 2 || sts[0].Member != "cat" || sts[1].Member != "ann" {
		t.Fatalf("blue's members %+v %v", sts, err)
	}
	// Leaving a team takes the scores out.
	if _, _, err := f.store.SetTeam(f.ctx, b.ID, "ann", "", tester); err != nil {
		t.Fatal(err)
	}
	if got, want := f.teams(b, board.Weekly), "blue=15@1"; got != want {
		t.Fatalf("after ann left: %s, want %s", got, want)
	}
}

// An average team board divides by the members that have a score in the
// period; a best team board keeps its best member's score, and finds the
// next best when the best gets worse or leaves.
func TestTeamsAverageAndBest(t *testing.T) {
	f := newFixture(t)
	avg := f.board(board.Board{ID: "team-avg", Periods: []board.Kind{board.AllTime}, Teams: board.TeamsAverage})
	f.join(avg, "ann", "red", board.Set, 10)
	f.join(avg, "bob", "red", board.Set, 5)
	f.join(avg, "cat", "blue", board.Set, 8)
	if got, want := f.teams(avg, board.AllTime), "blue=8@1 red=7.5@2"; got != want {
		t.Fatalf("averages: %s, want %s", got, want)
	}
	f.write(avg, "bob", board.Set, 20)
	if got, want := f.teams(avg, board.AllTime), "red=15@1 blue=8@2"; got != want {
		t.Fatalf("averages after a set: %s, want %s", got, want)
	}

	for _, order := range []board.Order{board.HigherIsBetter, board.LowerIsBetter} {
		best := f.board(board.Board{ID: "team-best-" + string(order), Order: order, Periods: []board.Kind{board.AllTime}, Teams: board.TeamsBest, RankStyle: board.Dense})
		f.join(best, "ann", "red", board.Set, 10)
		f.join(best, "bob", "red", board.Set, 50)
		f.join(best, "cat", "blue", board.Set, 30)
		f.join(best, "dan", "green", board.Set, 30)
		want := map[board.Order]string{board.HigherIsBetter: "red=50@1 green=30@2 blue=30@2", board.LowerIsBetter: "red=10@1 blue=30@2 green=30@2"}[order]
		if got := f.teams(best, board.AllTime); got != want {
			t.Fatalf("%s best: %s, want %s", order, got, want)
		}
		// The best member gets worse: the next best takes over.
		worse := map[board.Order]float64{board.HigherIsBetter: 1, board.LowerIsBetter: 99}[order]
		top := map[board.Order]string{board.HigherIsBetter: "bob", board.LowerIsBetter: "ann"}[order]
		f.write(best, top, board.Set, worse)
		want = map[board.Order]string{board.HigherIsBetter: "green=30@1 blue=30@1 red=10@2", board.LowerIsBetter: "blue=30@1 green=30@1 red=50@2"}[order]
		if got := f.teams(best, board.AllTime); got != want {
			t.Fatalf("%s best after %s got worse: %s, want %s", order, top, got, want)
		}
	}
}

// Turning teams on builds the standings of the periods held from the
// members' teams; the team mode change rebuilds them; off deletes them.
func TestTeamsModeChange(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime}, Teams: board.TeamsSum})
	f.join(b, "ann", "red", board.Set, 10)
	f.join(b, "bob", "red", board.Set, 4)
	upd := *b
	upd.Teams = board.TeamsBest
	got, err := f.store.UpdateBoard(f.ctx, upd)
	if err != nil {
		t.Fatal(err)
	}
	if s := f.teams(&got, board.AllTime); s != "red=10@1" {
		t.Fatalf("best after the change: %s", s)
	}
	upd = got
	upd.Teams = board.TeamsOff
	if got, err = f.store.UpdateBoard(f.ctx, upd); err != nil {
		t.Fatal(err)
	}
	z := ZSetKey(b.ID, board.Period{Kind: board.AllTime})
	if n, _ := f.rdb.Exists(f.ctx, teamZSetKey(z), teamCountKey(z)).Result(); n != 0 {
		t.Fatalf("team keys left after turning teams off: %d", n)
	}
	if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "cat", Team: "blue", Score: 1}, tester); err == nil || !strings.Contains(err.Error(), "no teams") {
		t.Fatalf("a team on a board without teams: %v", err)
	}
	if _, _, err := f.store.SetTeam(f.ctx, b.ID, "cat", "blue", tester); err == nil {
		t.Fatal("SetTeam on a board without teams")
	}
	upd = got
	upd.Teams = board.TeamsAverage
	if got, err = f.store.UpdateBoard(f.ctx, upd); err != nil {
		t.Fatal(err)
	}
	if s := f.teams(&got, board.AllTime); s != "red=7@1" {
		t.Fatalf("average after turning teams on again: %s", s)
	}
	for _, bad := range []string{"", " red", strings.Repeat("x", board.MaxTeamLen+1), "a\u200bb"} {
		if err := board.CheckTeam(bad); err == nil || !errors.Is(err, board.ErrInvalidInput) {
			t.Errorf("CheckTeam(%q) = %v", bad, err)
		}
	}
}

// Teams follow the size cap and the rolling windows: a member trimmed off a
// period, or whose changes leave a window, leaves its team's standing too.
func TestTeamsCapAndWindows(t *testing.T) {
	f := newFixture(t)
	day0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	f.at(day0)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime, board.Last7d}, Teams: board.TeamsSum, Cap: 2})
	f.join(b, "ann", "red", board.Incr, 10)
	f.join(b, "bob", "red", board.Incr, 5)
	f.join(b, "cat", "blue", board.Incr, 7) // bob (5) is trimmed
	if got, want := f.teams(b, board.AllTime), "red=10@1 blue=7@2"; got != want {
		t.Fatalf("after the cap: %s, want %s", got, want)
	}
	f.at(day0.Add(24 * time.Hour))
	f.write(b, "cat", board.Incr, 10)
	f.at(day0.Add(7*24*time.Hour + time.Hour))
	f.roll(b)
	if got, want := f.teams(b, board.Last7d), "blue=10@1"; got != want {
		t.Fatalf("last7d teams after day 0 left: %s, want %s", got, want)
	}
}

// A batch may put members in teams as it scores them, all at once.
func TestTeamsInABatch(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}, Teams: board.TeamsSum})
	subs := []board.Submission{{Member: "ann", Team: "red", Score: 3}, {Member: "bob", Team: "red", Score: 4}, {Member: "ann", Team: "blue", Score: 1}}
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, subs, board.BatchOptions{By: tester}); err != nil {
		t.Fatal(err)
	}
	if got, want := f.teams(b, board.AllTime), "red=4@1 blue=4@1"; got != want {
		t.Fatalf("teams: %s, want %s", got, want)
	}
}

// A frozen team board shows its public the team standings of the freeze,
// windows included, while admins and the standings themselves move on; the
// reveal shows the live ones.
func TestTeamsFrozen(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime, board.Last7d}, Teams: board.TeamsSum})
	f.join(b, "ann", "red", board.Incr, 10)
	f.join(b, "bob", "blue", board.Incr, 5)
	if _, err := f.store.Freeze(f.ctx, b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	f.join(b, "bob", "blue", board.Incr, 20)
	b = f.fresh(b.ID)
	for _, k := range []board.Kind{board.AllTime, board.Last7d} {
		if got, want := f.teams(b, k), "red=10@1 blue=5@2"; got != want {
			t.Fatalf("public %s teams while frozen: %s, want %s", k, got, want)
		}
		pg, err := f.store.TeamPage(LiveStandings(f.ctx), b, b.Current(k, f.clock.Now()), 0, 10)
		if err != nil || len(pg.Entries) != 2 || pg.Entries[0].Member != "blue" {
			t.Fatalf("admin %s teams while frozen: %+v %v", k, pg.Entries, err)
		}
	}
	if _, err := f.store.Unfreeze(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	b = f.fresh(b.ID)
	if got, want := f.teams(b, board.AllTime), "blue=25@1 red=10@2"; got != want {
		t.Fatalf("teams after the reveal: %s, want %s", got, want)
	}
}

// A team move after a scheduled freeze's time takes the freeze first: the
// public team standing is the freeze's.
func TestTeamMoveTakesADueFreeze(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}, Teams: board.TeamsSum})
	f.join(b, "ann", "red", board.Incr, 10)
	if _, err := f.store.Freeze(f.ctx, b.ID, f.clock.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	f.at(f.clock.Now().Add(2 * time.Minute))
	if _, _, err := f.store.SetTeam(f.ctx, b.ID, "ann", "blue", tester); err != nil {
		t.Fatal(err)
	}
	b = f.fresh(b.ID)
	if got, want := f.teams(b, board.AllTime), "red=10@1"; got != want {
		t.Fatalf("public teams: %s, want %s", got, want)
	}
}

// A frozen team's page lists its members as they were at the freeze: who
// joined or moved since stays the freeze's secret.
func TestTeamMembersFrozen(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}, Teams: board.TeamsSum})
	f.join(b, "ann", "red", board.Incr, 10)
	f.join(b, "bob", "red", board.Incr, 5)
	if _, err := f.store.Freeze(f.ctx, b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	f.join(b, "zed", "red", board.Incr, 1)
	f.join(b, "neo", "green", board.Incr, 1)
	if _, _, err := f.store.SetTeam(f.ctx, b.ID, "bob", "green", tester); err != nil {
		t.Fatal(err)
	}
	b = f.fresh(b.ID)
	p := b.Current(board.AllTime, f.clock.Now())
	names := func(ctx context.Context, team string) string {
		sts, err := f.store.TeamMembers(ctx, b, p, team)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, st := range sts {
			out = append(out, st.Member)
		}
		return strings.Join(out, " ")
	}
	if got := names(f.ctx, "red"); got != "ann bob" {
		t.Fatalf("red while frozen: %q", got)
	}
	if got := names(f.ctx, "green"); got != "" {
		t.Fatalf("green, made after the freeze: %q", got)
	}
	if got := names(LiveStandings(f.ctx), "red"); got != "ann zed" {
		t.Fatalf("red, live: %q", got)
	}
	if _, err := f.store.Unfreeze(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	b = f.fresh(b.ID)
	if got := names(f.ctx, "green"); got != "bob neo" {
		t.Fatalf("green after the reveal: %q", got)
	}
}
