package archive

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// A reset of a closed period while a replica is copying it: another
// replica's Settle must not drop the copy meanwhile (the copy would commit
// after the delete and come back for good); the next pass drops it.
func TestResetDuringCopy(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		w := f.week()
		by := board.Author{Actor: "test"}
		f.clock.Set(w.End.Add(time.Minute))
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("first pass: %d %v", n, err)
		}
		// Replica A starts the final pass under the lock: its snapshot is taken...
		f.clock.Set(w.End.Add(2 * time.Hour))
		l, err := f.a.lock(f.ctx, &f.b, w)
		if err != nil || l == nil {
			t.Fatal("lock", err)
		}
		snap, err := f.store.Snapshot(f.ctx, &f.b, w, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		// ...an admin resets the week, and replica B's Settle drops the copy.
		if _, err := f.store.ResetPeriod(f.ctx, f.b.ID, w, by); err != nil {
			t.Fatal(err)
		}
		other := &Archiver{Store: f.store, DB: db, Grace: time.Hour, Log: quiet}
		if _, err := other.Settle(f.ctx, &f.b); err != nil {
			t.Fatal(err)
		}
		// Replica A commits its copy (record then fails: state changed).
		def, _ := json.Marshal(board.SpecOf(&f.b))
		if _, err := f.a.write(f.ctx, &f.b, w, PassFinal, snap, string(def)); err != nil {
			t.Fatal(err)
		}
		snap.Close(f.ctx)
		l.release()
		// The next run drops it.
		for range 2 {
			if _, err := f.a.Due(f.ctx); err != nil {
				t.Fatal(err)
			}
		}
		if n, _ := db.Count(f.ctx, f.b.ID, w.String()); n != 0 {
			tops, total, _ := db.Winners(f.ctx, f.b.ID, board.Weekly, 0, 10)
			t.Fatalf("the reset week's copy is back: %d rows; winners page lists %d period(s): %v", n, total, tops)
		}
	})
}

// A closed week emptied by removals is copied again (0 rows) and expires: it
// reads as empty, not as lost (ErrGone).
func TestEmptiedPeriodIsEmpty(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.a.Linger = time.Millisecond
		by := board.Author{Actor: "test"}
		w := f.week()
		f.clock.Set(w.End.Add(time.Minute))
		if _, err := f.a.Due(f.ctx); err != nil {
			t.Fatal(err)
		}
		// Remove everyone from the closed week (RemoveMember on each).
		for {
			pg, err := f.store.Page(f.ctx, &f.b, w, 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(pg.Entries) == 0 {
				break
			}
			for _, e := range pg.Entries {
				if _, err := f.store.RemoveMember(f.ctx, f.b.ID, e.Member, &w, by); err != nil {
					t.Fatal(err)
				}
			}
		}
		f.clock.Set(w.End.Add(2 * time.Hour))
		if _, err := f.a.Due(f.ctx); err != nil {
			t.Fatal(err)
		}
		waitState(t, f, w)
		if pg, err := f.store.Page(f.ctx, &f.b, w, 0, 10); err != nil || pg.Total != 0 {
			t.Fatalf("page of a closed week emptied by removals, then archived: %+v %v", pg, err)
		}
	})
}

// A replica whose view of the states is stale (another expired the period
// since) never deletes the period's only copy: drop checks again under the
// lock.
func TestDropWithStaleState(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.a.Linger = time.Millisecond
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		// Replica A copies the final pass; its Settle reads the states now.
		f.a.Grace = time.Hour
		if ok, err := f.a.copyPass(f.ctx, &f.b, w, PassFinal); err != nil || !ok {
			t.Fatal(ok, err)
		}
		raw, _ := f.a.rawStates(f.ctx, &f.b)
		stale := raw[w.String()]
		// Replica B settles: W47 expires.
		other := &Archiver{Store: f.store, DB: db, Grace: time.Hour, Linger: time.Millisecond, Log: quiet}
		if n, err := other.Settle(f.ctx, &f.b); err != nil || n != 1 {
			t.Fatal(n, err)
		}
		waitGone(t, f, w)
		// Replica A goes on with its stale state: W47 is not in the periods set.
		if err := f.a.drop(f.ctx, &f.b, w.String(), stale); err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.Page(f.ctx, &f.b, w, 0, 10); errors.Is(err, board.ErrGone) {
			t.Fatalf("the expired week's only copy was deleted: %v", err)
		}
	})
}

// A writer whose clock lags far behind writes to a week whose keys have
// expired: refused, nothing written; the week still reads from the archive.
func TestLateWriteAfterExpiry(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.a.Linger = time.Millisecond
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		if _, err := f.a.Due(f.ctx); err != nil {
			t.Fatal(err)
		}
		waitGone(t, f, w)
		late := redisstore.NewStore(f.store.Client(), redisstore.WithClock(func() time.Time { return w.End.Add(-time.Second) }))
		if _, err := late.Submit(f.ctx, f.b.ID, board.Submission{Member: "late", Score: 1, Op: board.Set, Fields: []int64{0}}, board.Author{Actor: "test"}); !errors.Is(err, board.ErrArchived) {
			t.Fatalf("a write to an expired week: %v", err)
		}
		if _, err := late.SubmitBatch(f.ctx, f.b.ID, []board.Submission{{Member: "late", Score: 1, Op: board.Set, Fields: []int64{0}}}, board.BatchOptions{By: board.Author{Actor: "test"}}); !errors.Is(err, board.ErrArchived) {
			t.Fatalf("a batch to an expired week: %v", err)
		}
		for range 2 {
			if _, err := f.a.Due(f.ctx); err != nil {
				t.Fatal(err)
			}
		}
		pg, err := f.store.Page(f.ctx, &f.b, w, 0, 10)
		if err != nil || pg.Total != fixtureMembers {
			t.Fatalf("expired week after a late write: total %d (archive holds %d) %v", pg.Total, func() int { n, _ := db.Count(f.ctx, f.b.ID, w.String()); return n }(), err)
		}
	})
}

// A late write after the final pass marks the week changed: the next pass
// copies it again, and only then does it expire.
func TestLateWriteAfterFinalPass(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		if _, err := f.a.Due(f.ctx); err != nil {
			t.Fatal(err)
		}
		late := redisstore.NewStore(f.store.Client(), redisstore.WithClock(func() time.Time { return w.End.Add(-time.Second) }))
		if _, err := late.Submit(f.ctx, f.b.ID, board.Submission{Member: "late", Score: 1, Op: board.Set, Fields: []int64{0}}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.clock.Add(time.Hour)
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("the pass after a late write: %d %v", n, err)
		}
		if n, _ := db.Count(f.ctx, f.b.ID, w.String()); n != fixtureMembers+1 {
			t.Fatalf("the archive holds %d rows of %d", n, fixtureMembers+1)
		}
	})
}

// waitState waits for a period to be marked expired.
func waitState(t *testing.T, f *fixture, p board.Period) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		raw, err := f.a.rawStates(f.ctx, &f.b)
		if err != nil {
			t.Fatal(err)
		}
		if expired(raw[p.String()]) {
			waitGone(t, f, p)
			return
		}
	}
	t.Fatalf("%s was not set to expire", p)
}

// TestLowerNames: the migration that adds name_lc lower-cases names beyond
// ASCII as Go does, since searches are lowered by Go.
func TestLowerNames(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		for _, n := range []string{"Émile Zola", "ÅSA", "Bob"} {
			if _, err := db.sql.ExecContext(ctx, db.q(`INSERT INTO archive_entries (board, period, position, member, name, name_lc, score, rank, fields) VALUES ('b', 'week:2026-W47', ?, ?, ?, lower(?), 1, 1, '[]')`), len(n), n, n, n); err != nil {
				t.Fatal(err)
			}
		}
		tx, err := db.sql.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := lowerNames(ctx, db, tx); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		got, err := db.Past().Search(ctx, "b", "week:2026-W47", "é", 10)
		if err != nil || len(got) != 1 || got[0].Name != "Émile Zola" {
			t.Fatalf("search é: %+v %v", got, err)
		}
		if got, _ := db.Past().Search(ctx, "b", "week:2026-W47", "å", 10); len(got) != 1 {
			t.Fatalf("search å: %+v", got)
		}
		if got, _ := db.Past().Search(ctx, "b", "week:2026-W47", "bo", 10); len(got) != 1 {
			t.Fatalf("search bo: %+v", got)
		}
	})
}
