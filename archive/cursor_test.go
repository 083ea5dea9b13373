package archive

import (
	"fmt"
	"testing"
	"time"

	"podium/board"
)

// TestCursorFromArchive: a closed week walked by marks (board.Mark, the
// API's cursors) once its keys expired to the archive gives the pages
// Redis gave; a mark made while Redis held the week continues in the
// archive where Redis would have continued, its row there or, removed
// before the close, gone.
func TestCursorFromArchive(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		for _, order := range []board.Order{board.HigherIsBetter, board.LowerIsBetter} {
			t.Run(string(order), func(t *testing.T) {
				f := newFixtureOrder(t, db, order, true)
				f.b.Retention = 0
				var err error
				if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
					t.Fatal(err)
				}
				w := f.week()
				f.clock.Set(w.End.Add(2 * time.Hour))
				after := func(m board.Mark, limit int) board.Page {
					t.Helper()
					pg, err := f.store.PageAfter(f.ctx, &f.b, w, m, limit)
					if err != nil {
						t.Fatal(err)
					}
					return unkeyed(pg)
				}
				walk := func(limit int) []board.Page {
					t.Helper()
					pg, err := f.store.Page(f.ctx, &f.b, w, 0, limit)
					if err != nil {
						t.Fatal(err)
					}
					pages := []board.Page{pg}
					for len(pg.Entries) > 0 {
						pg, err = f.store.PageAfter(f.ctx, &f.b, w, board.MarkOf(pg.Entries[len(pg.Entries)-1]), limit)
						if err != nil {
							t.Fatal(err)
						}
						pages = append(pages, pg)
					}
					for i := range pages {
						pages[i] = unkeyed(pages[i])
					}
					return pages
				}
				before := walk(37)
				// Marks made in Redis: one of a row that stays, one of a
				// row removed before the week is archived.
				kept := f.rowAt(t, w, 74)
				gone := f.rowAt(t, w, 150)
				if _, err := f.store.RemoveMember(f.ctx, f.b.ID, gone.Member, &w, board.Author{Actor: "test"}); err != nil {
					t.Fatal(err)
				}
				wantKept, wantGone := after(board.MarkOf(kept), 20), after(board.MarkOf(gone), 20)
				if len(wantGone.Entries) != 20 || wantGone.Offset != 150 {
					t.Fatalf("Redis after a removed row: %d rows from %d", len(wantGone.Entries), wantGone.Offset)
				}
				f.a.Linger = time.Millisecond
				if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
					t.Fatalf("final pass: %d %v", n, err)
				}
				waitGone(t, f, w)
				if got := after(board.MarkOf(kept), 20); fmt.Sprint(got) != fmt.Sprint(wantKept) {
					t.Fatalf("after a kept row, from the archive:\n got  %+v\n want %+v", got, wantKept)
				}
				if got := after(board.MarkOf(gone), 20); fmt.Sprint(got) != fmt.Sprint(wantGone) {
					t.Fatalf("after a removed row, from the archive:\n got  %+v\n want %+v", got, wantGone)
				}
				// The whole walk, less the removed row, by the archive's own marks.
				got := walk(37)
				var want, have []string
				for _, pg := range before {
					for _, e := range pg.Entries {
						if e.Member != gone.Member {
							want = append(want, e.Member)
						}
					}
				}
				for i, pg := range got {
					for j, e := range pg.Entries {
						if e.Key != "" || (i > 0 && j == 0 && e.Position != got[i-1].Entries[len(got[i-1].Entries)-1].Position+1) {
							t.Fatalf("page %d row %d: %+v", i, j, e)
						}
						have = append(have, e.Member)
					}
				}
				if fmt.Sprint(have) != fmt.Sprint(want) {
					t.Fatalf("the archive's walk:\n got  %v\n want %v", have, want)
				}
			})
		}
	})
}

// rowAt is the row at position pos of period p.
func (f *fixture) rowAt(t *testing.T, p board.Period, pos int) board.Entry {
	t.Helper()
	pg, err := f.store.Page(f.ctx, &f.b, p, pos, 1)
	if err != nil || len(pg.Entries) != 1 {
		t.Fatalf("row %d: %+v %v", pos, pg, err)
	}
	return pg.Entries[0]
}

func unkeyed(pg board.Page) board.Page {
	for i := range pg.Entries {
		pg.Entries[i].Key = ""
	}
	return pg
}
