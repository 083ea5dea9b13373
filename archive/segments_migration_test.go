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

// TestMigrationAddsSegments: an archive made by the version before
// segments were archived (schema 5), with rows, is migrated at start: its
// rows stay, with no values; a period of a board that had the attribute
// says its segments were not archived (a segment read of it is ErrGone),
// one of a board without it holds an empty segment; new copies hold their
// segments, beside the old rows.
func TestMigrationAddsSegments(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, fresh *DB) {
		ctx := context.Background()
		target := filepath.Join(t.TempDir(), "old.db")
		if fresh.postgres {
			target = psrv.Database(t)
		}
		old, err := open(ctx, target, 5)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := old.sql.ExecContext(ctx, `SELECT COUNT(*) FROM archive_segments`); err == nil {
			t.Fatal("schema 5 has archive_segments")
		}
		// W46 of a board that had countries then, W45 of one that had none.
		for _, w := range []struct{ period, def string }{{"week:2026-W46", `{"segments":["country"]}`}, {"week:2026-W45", `{}`}} {
			if _, err := old.sql.ExecContext(ctx, old.q(`INSERT INTO archive_periods (board, period, starts_at, ends_at, members, pass, archived_at, definition)
				VALUES ('arcade', ?, 1, 2, 3, 2, 3, ?)`), w.period, w.def); err != nil {
				t.Fatal(err)
			}
			for i, m := range []string{"ann", "bob", "cat"} {
				if _, err := old.sql.ExecContext(ctx, old.q(`INSERT INTO archive_entries (board, period, position, member, name, name_lc, score, rank, fields)
					VALUES ('arcade', ?, ?, ?, ?, ?, ?, ?, '[]')`), w.period, i, m, m, m, 30-10*i, i+1); err != nil {
					t.Fatal(err)
				}
			}
		}
		old.Close()

		db, err := Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var blank int
		if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM archive_entries WHERE segments = ''`).Scan(&blank); err != nil || blank != 6 {
			t.Fatalf("%d rows without values after the migration: %v", blank, err)
		}
		no := board.Segment{Attr: "country", Value: "NO"}
		if n, held, err := db.Past().SegmentHeld(ctx, "arcade", "week:2026-W46", no); err != nil || held || n != 0 {
			t.Fatalf("W46's segments after the migration: %d %v %v", n, held, err)
		}
		if n, held, err := db.Past().SegmentHeld(ctx, "arcade", "week:2026-W45", no); err != nil || !held || n != 0 {
			t.Fatalf("W45's segments after the migration: %d %v %v", n, held, err)
		}
		// One place per member and attribute.
		insert := func(pos int, value, m string) error {
			_, err := db.sql.ExecContext(ctx, db.q(`INSERT INTO archive_segments (board, period, attr, value, position, member, rank)
				VALUES ('other', 'week:2026-W40', 'country', ?, ?, ?, 1)`), value, pos, m)
			return err
		}
		if err := insert(0, "NO", "ann"); err != nil {
			t.Fatal(err)
		}
		if insert(0, "NO", "bob") == nil || insert(1, "SE", "ann") == nil {
			t.Fatal("two members in one place, or one member in two values of an attribute")
		}

		// The app on the migrated archive: both weeks expired long ago.
		rdb := newRedis(t)
		c := &clock{}
		c.Set(time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)) // W47
		store := redisstore.NewStore(rdb, redisstore.WithClock(c.Now), redisstore.WithDefinitionTTL(0), redisstore.WithPast(db.Past()))
		b, err := store.CreateBoard(ctx, board.Board{ID: "arcade", Title: "Arcade", Periods: []board.Kind{board.Weekly}, Segments: []string{"country"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"week:2026-W46", "week:2026-W45"} {
			if err := rdb.HSet(ctx, redisstore.ArchiveState(b.ID), w, "2 1 x2").Err(); err != nil {
				t.Fatal(err)
			}
		}
		p46, _ := board.ParsePeriod(board.Weekly, "2026-W46", b.Location())
		p45, _ := board.ParsePeriod(board.Weekly, "2026-W45", b.Location())
		if pg, err := store.Page(ctx, &b, p46, 0, 10); err != nil || pg.Total != 3 {
			t.Fatalf("members of W46 after the migration: %+v %v", pg, err)
		}
		if _, err := store.SegmentPage(ctx, &b, p46, no, 0, 10); !errors.Is(err, board.ErrGone) {
			t.Fatalf("a segment of W46 after the migration: %v", err)
		}
		if pg, err := store.SegmentPage(ctx, &b, p45, no, 0, 10); err != nil || pg.Total != 0 || len(pg.Entries) != 0 {
			t.Fatalf("a segment of W45 after the migration: %+v %v", pg, err)
		}
		// W47 closes and is copied with its segments.
		for _, sub := range []board.Submission{{Member: "ann", Score: 7, Segments: map[string]string{"country": "NO"}}, {Member: "bob", Score: 7}} {
			if _, err := store.Submit(ctx, b.ID, sub, board.Author{Actor: "test"}); err != nil {
				t.Fatal(err)
			}
		}
		c.Set(time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC))
		a := &Archiver{Store: store, DB: db, Grace: time.Hour, Log: quiet}
		if n, err := a.Due(ctx); err != nil || n != 1 {
			t.Fatalf("pass on the migrated archive: %d %v", n, err)
		}
		rows, err := db.Past().SegmentRows(ctx, b.ID, "week:2026-W47", no, 0, 10)
		want := []board.Entry{{Rank: 1, Member: "ann", Name: "ann", Score: 7, GlobalRank: 1, GlobalPosition: 1}} // tied with bob, at the same instant: Redis puts bob first
		if err != nil || !reflect.DeepEqual(rows, want) {
			t.Fatalf("country NO of W47: %+v %v", rows, err)
		}
	})
}

// TestOldCopyGetsItsSegmentsBeforeExpiry: a closed week whose final copy
// was made without its segments (as the migration leaves a copy of the
// version before) is copied again before its keys leave Redis, and then
// answers its segments from the archive as Redis did.
func TestOldCopyGetsItsSegmentsBeforeExpiry(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newSegmentFixture(t, db, board.Competition, board.HigherIsBetter, false)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		for _, q := range []string{`DELETE FROM archive_segments`, `UPDATE archive_periods SET segments = NULL`, `UPDATE archive_entries SET segments = ''`} {
			if _, err := db.sql.ExecContext(f.ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		before := readSegments(t, f.store, &f.b, w)
		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.a.Linger = time.Millisecond
		if n, err := f.a.Due(f.ctx); err != nil || n != 0 {
			t.Fatalf("pass that finds the copy without segments: %d %v", n, err)
		}
		if raw, err := f.a.rawStates(f.ctx, &f.b); err != nil || expired(raw[w.String()]) {
			t.Fatalf("the week was let go without its segments archived: %q %v", raw[w.String()], err)
		}
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("pass that copies it again: %d %v", n, err)
		}
		waitGone(t, f, w)
		if after := readSegments(t, f.store, &f.b, w); !reflect.DeepEqual(before, after) {
			diffSegments(t, before, after)
		}
	})
}
