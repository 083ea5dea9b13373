package archive

import (
	"reflect"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// A closed period's race is archived with it and read from the archive
// once its keys have expired, point for point; an erasure renames the
// member's archived points.
func TestRaceArchived(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		w := f.week()
		for i, v := range []float64{41, 45, 50} { // a race at the top after the fixture's writes
			f.clock.Add(time.Minute)
			if _, err := f.store.Submit(f.ctx, f.b.ID, board.Submission{Member: member(i), Score: v, Op: board.Set, Fields: []int64{0}}, board.Author{Actor: "test"}); err != nil {
				t.Fatal(err)
			}
		}
		before, err := f.store.Race(f.ctx, &f.b, w)
		if err != nil || len(before) < 3 || before[len(before)-1].Score != 50 {
			t.Fatalf("race in Redis: %v %v", before, err)
		}
		f.clock.Set(w.End.Add(2 * time.Hour))
		f.a.Linger = time.Millisecond
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		for deadline := time.Now().Add(30 * time.Second); f.store.Client().Exists(f.ctx, redisstore.RaceKey(f.b.ID, w)).Val() == 1; {
			if time.Now().After(deadline) {
				t.Fatal("the race outlived its period's keys")
			}
			time.Sleep(5 * time.Millisecond)
		}
		after, err := f.store.Race(f.ctx, &f.b, w)
		if err != nil || !reflect.DeepEqual(before, after) {
			t.Fatalf("race from the archive:\n%v %v\nwant\n%v", after, err, before)
		}
		n, err := db.renameRace(f.ctx, f.b.ID, member(2), "anon-1")
		if err != nil || n == 0 {
			t.Fatalf("erasure renamed %d points: %v", n, err)
		}
		pts, _ := f.store.Race(f.ctx, &f.b, w)
		for _, pt := range pts {
			if pt.Member == member(2) {
				t.Fatalf("an erased member's point is left: %+v", pt)
			}
		}
		if last := pts[len(pts)-1]; last.Member != "anon-1" || last.Score != 50 {
			t.Fatalf("the erased member's last point: %+v", last)
		}
	})
}

// A period that closed after the freeze of a board still frozen is read
// from the archive, once its keys have expired, as its public read it
// from Redis: the freeze's race, though later writes trimmed the live
// race's oldest points (how many went would count the hidden writes).
func TestRaceArchivedWhileFrozen(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		w := f.week()
		write := func(id string, v float64) {
			t.Helper()
			if _, err := f.store.Submit(f.ctx, f.b.ID, board.Submission{Member: id, Score: v, Op: board.Set, Fields: []int64{0}}, board.Author{Actor: "test"}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 2000 {
			write(member(0), float64(1000+i))
		}
		f.clock.Add(time.Minute)
		if f.b, err = f.store.Freeze(f.ctx, f.b.ID, time.Time{}); err != nil {
			t.Fatal(err)
		}
		f.clock.Add(time.Minute)
		for i := range 5 {
			write(member(1), float64(5000+i))
		}
		before, err := f.store.Race(f.ctx, &f.b, w)
		if err != nil || len(before) != 2000 {
			t.Fatalf("public race in Redis while frozen: %d points, %v", len(before), err)
		}
		f.clock.Set(w.End.Add(2 * time.Hour))
		f.a.Linger = time.Millisecond
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		for deadline := time.Now().Add(30 * time.Second); f.store.Client().Exists(f.ctx, redisstore.RaceKey(f.b.ID, w)).Val() == 1; {
			if time.Now().After(deadline) {
				t.Fatal("the race outlived its period's keys")
			}
			time.Sleep(5 * time.Millisecond)
		}
		after, err := f.store.Race(f.ctx, &f.b, w)
		if err != nil || !reflect.DeepEqual(before, after) {
			t.Fatalf("public race from the archive while frozen: %d points from %v, %v; want %d from %v", len(after), after[0], err, len(before), before[0])
		}
		live, err := f.store.Race(redisstore.LiveStandings(f.ctx), &f.b, w)
		if err != nil || len(live) != 2005 || live[len(live)-1].Score != 5004 {
			t.Fatalf("admins' race from the archive: %d points, %v", len(live), err)
		}
	})
}

// A period's archived race goes with its copy (a reset period's) and
// with its board (a board made again under the id must not inherit it,
// nor its members' data show it).
func TestRaceDroppedWithItsCopy(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		w := f.week()
		if _, err := f.store.Submit(f.ctx, f.b.ID, board.Submission{Member: member(0), Score: 500, Op: board.Set, Fields: []int64{0}}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		f.clock.Set(w.End.Add(2 * time.Hour))
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		held := func() int {
			t.Helper()
			pts, err := db.MemberRace(f.ctx, f.b.ID, member(0), 100)
			if err != nil {
				t.Fatal(err)
			}
			return len(pts)
		}
		if held() == 0 {
			t.Fatal("the archived race holds no point of the member")
		}
		if err := db.Delete(f.ctx, f.b.ID, w.String()); err != nil {
			t.Fatal(err)
		}
		if n := held(); n != 0 {
			t.Fatalf("the period's copy was dropped, its race kept %d points", n)
		}
		tx, err := db.sql.BeginTx(f.ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.a.writeRace(f.ctx, tx, &f.b, w); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if held() == 0 {
			t.Fatal("the race copied again holds no point of the member")
		}
		if _, err := db.DropBoard(f.ctx, f.b.ID); err != nil {
			t.Fatal(err)
		}
		if n := held(); n != 0 {
			t.Fatalf("the board was dropped, its race kept %d points", n)
		}
	})
}
