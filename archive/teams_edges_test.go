package archive

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// TestTeamModeTurnedOnDuringAPass: Due reads every board's definition
// once, then copies and settles board after board. Teams turned on in
// between (the rebuild makes the closed week's standing) must not let the
// week expire with a copy that lacks it: Settle reads the definition again,
// so the next pass copies the teams before the keys go.
func TestTeamModeTurnedOnDuringAPass(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newTeamFixture(t, db, board.TeamsSum, board.Competition, board.HigherIsBetter)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		var err error
		f.b.Retention = 0
		f.b.Teams = board.TeamsOff
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		stale := f.b // what Due's Boards() read at the start of its pass
		f.b.Teams = board.TeamsSum
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		live, err := f.store.TeamPage(redisstore.LiveStandings(f.ctx), &f.b, w, 0, 1)
		if err != nil || live.Total != fixtureTeams {
			t.Fatalf("Redis' standing of the week: %d %v", live.Total, err)
		}
		// Due goes on with the definition it read.
		f.a.Linger = time.Millisecond
		if ok, err := f.a.copyPass(f.ctx, &stale, w, PassFinal); err != nil || !ok {
			t.Fatalf("copy: %v %v", ok, err)
		}
		if _, err := f.a.Settle(f.ctx, &stale); err != nil {
			t.Fatalf("settle: %v", err)
		}
		for range 2 { // later passes, with the definition read afresh
			if _, err := f.a.Due(f.ctx); err != nil {
				t.Fatal(err)
			}
		}
		waitGone(t, f, w)
		if _, err := f.store.TeamPage(f.ctx, &f.b, w, 0, 10); errors.Is(err, board.ErrTeamsNotArchived) {
			t.Fatalf("the week had its teams in Redis on a team board when copied, and is now gone: %v", err)
		} else if err != nil {
			t.Fatal(err)
		}
	})
}

// TestTeamSnapshotLeavesNoKeys: after a copy of a dense team board, no
// snapshot key is left in Redis, and a snapshot never closed expires.
func TestTeamSnapshotLeavesNoKeys(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		if db.postgres {
			t.Skip("Redis only")
		}
		f := newTeamFixture(t, db, board.TeamsAverage, board.Dense, board.HigherIsBetter)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("%d %v", n, err)
		}
		keys, _ := f.store.Client().Keys(f.ctx, "*snap*").Result()
		if len(keys) != 0 {
			t.Fatalf("left: %v", keys)
		}
		sn, err := f.store.Snapshot(f.ctx, &f.b, w, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		keys, _ = f.store.Client().Keys(f.ctx, "*snap*").Result()
		for _, k := range keys {
			if ttl, _ := f.store.Client().TTL(f.ctx, k).Result(); ttl <= 0 {
				t.Fatalf("%s has no TTL: %v", k, ttl)
			}
		}
		t.Logf("snapshot keys: %v teams %d", keys, sn.Teams)
		sn.Close(f.ctx)
		keys, _ = f.store.Client().Keys(f.ctx, "*snap*").Result()
		if len(keys) != 0 {
			t.Fatalf("left after Close: %v", keys)
		}
	})
}

// TestZeroTeamsExpires: a team board's closed week in which no member
// is in a team is archived with 0 teams and expires; its team page is empty.
func TestZeroTeamsExpires(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db) // members, no teams
		w := f.week()
		var err error
		f.b.Teams = board.TeamsAverage
		f.b.Retention = 0
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.clock.Set(w.End.Add(2 * time.Hour))
		f.a.Linger = time.Millisecond
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("%d %v", n, err)
		}
		waitGone(t, f, w)
		pg, err := f.store.TeamPage(f.ctx, &f.b, w, 0, 10)
		if err != nil || pg.Total != 0 {
			t.Fatalf("%+v %v", pg, err)
		}
		if sz, err := f.store.TeamSizes(f.ctx, &f.b, w, []string{"x"}); err != nil || sz[0] != 0 {
			t.Fatalf("%v %v", sz, err)
		}
		// Teams off: the next week expires without a team check.
		f.b.Teams = board.TeamsOff
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.Submit(f.ctx, f.b.ID, board.Submission{Member: "zed", Score: 1, Fields: []int64{0}}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		w2 := w.Next()
		f.clock.Set(w2.End.Add(2 * time.Hour))
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("%d %v", n, err)
		}
		raw, _ := f.a.rawStates(f.ctx, &f.b)
		if !expired(raw[w2.String()]) {
			t.Fatalf("W48 on a board with teams off did not expire: %q", raw[w2.String()])
		}
	})
}

// TestArchivedTeamModeStays: an archived week keeps the team mode it
// closed under: after the board switches from average to best, the week
// still reads as averages (rounded as averages are), and says so.
func TestArchivedTeamModeStays(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newTeamFixture(t, db, board.TeamsAverage, board.Competition, board.HigherIsBetter)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		before, err := f.store.TeamPage(f.ctx, &f.b, w, 0, 50)
		if err != nil || before.Teams != board.TeamsAverage {
			t.Fatalf("from Redis: %v %v", before.Teams, err)
		}
		f.b.Retention = 0
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.a.Linger = time.Millisecond
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		waitGone(t, f, w)
		f.b.Teams = board.TeamsBest
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		after, err := f.store.TeamPage(f.ctx, &f.b, w, 0, 50)
		if err != nil || after.Teams != board.TeamsAverage || !reflect.DeepEqual(after.Entries, before.Entries) {
			t.Fatalf("from the archive after the switch to best: %v %v\n%+v\nwas %+v", after.Teams, err, after.Entries[:3], before.Entries[:3])
		}
		if now, err := f.store.TeamPage(f.ctx, &f.b, f.b.Current(board.AllTime, f.clock.Now()), 0, 1); err != nil || now.Teams != board.TeamsBest {
			t.Fatalf("all time after the switch: %v %v", now.Teams, err)
		}
	})
}
