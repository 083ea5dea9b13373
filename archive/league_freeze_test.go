package archive

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/rows"
)

// TestLeagueExportFrozen: a week that closes during its board's freeze is
// closed from the live standings; the public's export of the week, the
// standings at the freeze, says nothing of the close's moves until the
// reveal (they would tell who led each cohort after the freeze).
func TestLeagueExportFrozen(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newLeagueFixture(t, db, board.Competition, false)
		w := f.week()
		if _, err := f.store.Freeze(f.ctx, f.b.ID, time.Time{}); err != nil {
			t.Fatal(err)
		}
		f.clock.Set(w.End.Add(2 * time.Hour))
		if err := f.a.closeLeague(f.ctx, &f.b, w); err != nil {
			t.Fatal(err)
		}
		r := NewReader(f.store, db, 1)
		export := func() string {
			t.Helper()
			b, err := f.store.Board(f.ctx, f.b.ID)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := rows.Export(&buf, rows.CSV, &b, w, board.Segment{}, func(fn func([]board.Entry) error) error { return r.EachIn(f.ctx, &b, w, board.Segment{}, fn) }); err != nil {
				t.Fatal(err)
			}
			return buf.String()
		}
		if got := export(); strings.Contains(got, "league_move") || strings.Contains(got, ",up,") {
			t.Fatalf("frozen export with the close's moves: %.300s", got)
		}
		if _, err := f.store.Unfreeze(f.ctx, f.b.ID); err != nil {
			t.Fatal(err)
		}
		if got := export(); !strings.Contains(got, "league_move") {
			t.Fatalf("export after the reveal without the close's moves: %.300s", got)
		}
	})
}
