package archive

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// TestMigrationAddsTeamStandings: an archive made by the version before
// team standings were archived (schema 4) is migrated at start: its
// periods keep their members and say their team standing was not
// archived, the new table keeps one row per team and per place, and new
// copies hold their team standings.
func TestMigrationAddsTeamStandings(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, fresh *DB) {
		ctx := context.Background()
		target := filepath.Join(t.TempDir(), "old.db")
		if fresh.postgres {
			target = psrv.Database(t)
		}
		old, err := open(ctx, target, 4)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := old.sql.ExecContext(ctx, `SELECT COUNT(*) FROM archive_teams`); err == nil {
			t.Fatal("schema 4 has archive_teams")
		}
		// W47 of a team board, as schema 4's archiver wrote it: members only.
		w47 := "week:2026-W47"
		if _, err := old.sql.ExecContext(ctx, old.q(`INSERT INTO archive_periods (board, period, starts_at, ends_at, members, pass, archived_at, definition)
			VALUES ('league', ?, 1, 2, 3, 2, 3, '{"teams":"sum"}')`), w47); err != nil {
			t.Fatal(err)
		}
		for i, m := range []string{"ann", "bob", "cat"} {
			if _, err := old.sql.ExecContext(ctx, old.q(`INSERT INTO archive_entries (board, period, position, member, name, name_lc, score, rank, fields)
				VALUES ('league', ?, ?, ?, ?, ?, ?, ?, '[]')`), w47, i, m, m, m, 30-10*i, i+1); err != nil {
				t.Fatal(err)
			}
		}
		old.Close()

		db, err := Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var versions int
		if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM archive_schema`).Scan(&versions); err != nil || versions != len(migrations)-1 {
			t.Fatalf("%d versions applied: %v", versions, err)
		}
		if n, _, held, err := db.Past().TeamHeld(ctx, "league", w47); err != nil || held || n != 0 {
			t.Fatalf("a copy made before the migration holds a team standing: %d %v %v", n, held, err)
		}
		// One row per team and one per place.
		insert := func(pos int, team string) error {
			_, err := db.sql.ExecContext(ctx, db.q(`INSERT INTO archive_teams (board, period, position, team, name, score, rank, members)
				VALUES ('other', 'week:2026-W40', ?, ?, ?, 5, 1, 2)`), pos, team, team)
			return err
		}
		if err := insert(0, "red"); err != nil {
			t.Fatal(err)
		}
		if insert(0, "blue") == nil {
			t.Fatal("two teams in one place")
		}
		if insert(1, "red") == nil {
			t.Fatal("one team in two places")
		}

		// The app on the migrated archive: W47 expired from Redis long ago.
		rdb := newRedis(t)
		c := &clock{}
		c.Set(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)) // W48
		store := redisstore.NewStore(rdb, redisstore.WithClock(c.Now), redisstore.WithDefinitionTTL(0), redisstore.WithPast(db.Past()))
		b, err := store.CreateBoard(ctx, board.Board{ID: "league", Title: "League", Periods: []board.Kind{board.Weekly}, Teams: board.TeamsSum})
		if err != nil {
			t.Fatal(err)
		}
		if err := rdb.HSet(ctx, redisstore.ArchiveState(b.ID), w47, "2 1 x2").Err(); err != nil {
			t.Fatal(err)
		}
		p47, _ := board.ParsePeriod(board.Weekly, "2026-W47", b.Location())
		if pg, err := store.Page(ctx, &b, p47, 0, 10); err != nil || pg.Total != 3 || pg.Entries[2].Member != "cat" || pg.Entries[2].Rank != 3 {
			t.Fatalf("members of W47 after the migration: %+v %v", pg, err)
		}
		if _, err := store.TeamPage(ctx, &b, p47, 0, 10); !errors.Is(err, board.ErrTeamsNotArchived) {
			t.Fatalf("teams of W47 after the migration: %v", err)
		}
		// W48 closes and is copied with its team standing.
		if _, err := store.Submit(ctx, b.ID, board.Submission{Member: "ann", Score: 7, Team: "red"}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		c.Set(time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC))
		a := &Archiver{Store: store, DB: db, Grace: time.Hour, Log: quiet}
		if n, err := a.Due(ctx); err != nil || n != 1 {
			t.Fatalf("pass on the migrated archive: %d %v", n, err)
		}
		rows, err := db.Past().TeamRows(ctx, b.ID, "week:2026-W48", 0, 10)
		if n, _, held, _ := db.Past().TeamHeld(ctx, b.ID, "week:2026-W48"); err != nil || !held || n != 1 || len(rows) != 1 || rows[0].Member != "red" || rows[0].Score != 7 {
			t.Fatalf("teams of W48: %d %v %+v %v", n, held, rows, err)
		}
	})
}

// TestOldCopyGetsItsTeamsBeforeExpiry: a closed week whose final copy was
// made without its team standing (by the version before, as the migration
// leaves it) is not let go from Redis with its standing: it is copied again
// first, and then expires with the archive holding what Redis showed.
func TestOldCopyGetsItsTeamsBeforeExpiry(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newTeamFixture(t, db, board.TeamsAverage, board.Competition, board.HigherIsBetter)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		// What schema 4's archiver left, once migrated.
		for _, q := range []string{`DELETE FROM archive_teams`, `UPDATE archive_periods SET teams = NULL`} {
			if _, err := db.sql.ExecContext(f.ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		before := readTeams(t, f.store, &f.b, w)
		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.a.Linger = time.Millisecond
		if n, err := f.a.Due(f.ctx); err != nil || n != 0 {
			t.Fatalf("pass that finds the copy without teams: %d %v", n, err)
		}
		if raw, err := f.a.rawStates(f.ctx, &f.b); err != nil || expired(raw[w.String()]) {
			t.Fatalf("the week was let go without its team standing archived: %q %v", raw[w.String()], err)
		}
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("pass that copies it again: %d %v", n, err)
		}
		waitGone(t, f, w)
		if after := readTeams(t, f.store, &f.b, w); !reflect.DeepEqual(before, after) {
			diffTeams(t, before, after)
		}
	})
}
