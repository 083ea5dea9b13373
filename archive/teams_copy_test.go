package archive

import (
	"errors"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// TestTeamCopyIsLive: a frozen board's archive keeps the live team
// standing, not the public's copy at the freeze.
func TestTeamCopyIsLive(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newTeamFixture(t, db, board.TeamsSum, board.Competition, board.HigherIsBetter)
		w := f.week()
		var err error
		if f.b, err = f.store.Freeze(f.ctx, f.b.ID, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.Submit(f.ctx, f.b.ID, board.Submission{Member: "p0050", Score: 1000, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		f.clock.Set(w.End.Add(2 * time.Hour))
		public, err := f.store.TeamPage(f.ctx, &f.b, w, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		f.sameTeams(t, w)
		rows, _ := db.Past().TeamRows(f.ctx, f.b.ID, w.String(), 0, 1)
		if len(rows) != 1 || rows[0].Member != "t0050" || rows[0].Score == public.Entries[0].Score {
			t.Fatalf("archived top team %+v; the public's %+v", rows, public.Entries)
		}
	})
}

// TestTeamCopyAllOrNothing: a copy whose team standing cannot be written
// records nothing: the members of the earlier copy stay as they were, and
// the next pass, once the database takes it, writes both.
func TestTeamCopyAllOrNothing(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newTeamFixture(t, db, board.TeamsSum, board.Competition, board.HigherIsBetter)
		w := f.week()
		f.clock.Set(w.End.Add(time.Minute))
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("first pass: %d %v", n, err)
		}
		if _, err := f.store.RemoveMember(f.ctx, f.b.ID, "p0039", &w, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		refuseTeams(t, db)
		f.clock.Set(w.End.Add(2 * time.Hour))
		if n, err := f.a.Due(f.ctx); err == nil || n != 0 {
			t.Fatalf("a pass whose teams could not be written: %d %v", n, err)
		}
		if n, _ := db.Count(f.ctx, f.b.ID, w.String()); n != fixtureMembers {
			t.Fatalf("the archive holds %d member rows, want the first pass's %d", n, fixtureMembers)
		}
		if ps, _ := db.Periods(f.ctx, f.b.ID); len(ps) != 1 || ps[0].Pass != PassFirst {
			t.Fatalf("archived periods %+v", ps)
		}
		allowTeams(t, db)
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		if n, _ := db.Count(f.ctx, f.b.ID, w.String()); n != fixtureMembers-1 {
			t.Fatalf("the archive holds %d member rows, want %d", n, fixtureMembers-1)
		}
		f.sameTeams(t, w)
	})
}

// refuseTeams makes the database refuse rows of team standings.
func refuseTeams(t *testing.T, db *DB) {
	t.Helper()
	stmts := []string{`CREATE TRIGGER refuse_teams BEFORE INSERT ON archive_teams BEGIN SELECT RAISE(ABORT, 'no team rows today'); END`}
	if db.postgres {
		stmts = []string{
			`CREATE FUNCTION refuse_teams() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no team rows today'; END $$`,
			`CREATE TRIGGER refuse_teams BEFORE INSERT ON archive_teams FOR EACH ROW EXECUTE FUNCTION refuse_teams()`,
		}
	}
	for _, s := range stmts {
		if _, err := db.sql.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

func allowTeams(t *testing.T, db *DB) {
	t.Helper()
	q := `DROP TRIGGER refuse_teams`
	if db.postgres {
		q = `DROP TRIGGER refuse_teams ON archive_teams`
	}
	if _, err := db.sql.Exec(q); err != nil {
		t.Fatal(err)
	}
}

// TestTeamsNotArchived: a period archived while its board kept no teams
// says its team standing was not archived, in every team read, rather
// than showing an empty standing; its members read as ever.
func TestTeamsNotArchived(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		w := f.week()
		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.clock.Set(w.End.Add(2 * time.Hour))
		f.a.Linger = time.Millisecond
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		waitGone(t, f, w)
		if n, _, held, err := db.Past().TeamHeld(f.ctx, f.b.ID, w.String()); err != nil || held || n != 0 {
			t.Fatalf("a board without teams archived a team standing: %d %v %v", n, held, err)
		}
		f.b.Teams = board.TeamsSum
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.TeamPage(f.ctx, &f.b, w, 0, 10); !errors.Is(err, board.ErrTeamsNotArchived) {
			t.Fatalf("team page: %v", err)
		}
		if _, err := f.store.TeamSizes(f.ctx, &f.b, w, []string{"red"}); !errors.Is(err, board.ErrTeamsNotArchived) {
			t.Fatalf("team sizes: %v", err)
		}
		vs := f.store.ReadViews(f.ctx, []redisstore.ViewQuery{{Board: &f.b, Period: w, Limit: 10, Teams: true}})
		if !errors.Is(vs[0].Err, board.ErrTeamsNotArchived) {
			t.Fatalf("live view: %v", vs[0].Err)
		}
		if pg, err := f.store.Page(f.ctx, &f.b, w, 0, 10); err != nil || pg.Total != fixtureMembers {
			t.Fatalf("members: %d %v", pg.Total, err)
		}
		// The current week has a team standing of its own, as ever.
		if _, err := f.store.Submit(f.ctx, f.b.ID, board.Submission{Member: "ann", Score: 3, Team: "red", Fields: []int64{0}}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		if pg, err := f.store.TeamPage(f.ctx, &f.b, w.Next(), 0, 10); err != nil || pg.Total != 1 {
			t.Fatalf("teams of the week in progress: %+v %v", pg, err)
		}
	})
}
