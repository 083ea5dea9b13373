package archive

import (
	"context"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"podium/board"
)

// TestArchivedReadsAtAMillion times each read of an archived period of
// 1,000,000 members, 900,000 of them tied at the bottom, on both databases:
// every read is index seeks, so each takes a few milliseconds at most. It
// reports, never asserts a time (make bench-archive).
func TestArchivedReadsAtAMillion(t *testing.T) {
	if os.Getenv("ARCHIVE_PERF") == "" {
		t.Skip("set ARCHIVE_PERF=1: times every archive read on a 1,000,000-member period (make bench-archive)")
	}
	backends(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		const n = 1_000_000
		q := `INSERT INTO archive_entries (board, period, position, member, name, name_lc, score, rank, fields)
			SELECT 'big', 'week:2026-W47', i, 'm' || i, 'Name' || i, 'name' || i, CASE WHEN i < 100000 THEN 100000 - i ELSE 0 END, CASE WHEN i < 100000 THEN i + 1 ELSE 100001 END, '[]' FROM `
		if db.postgres {
			q += `generate_series(0, ` + strconv.Itoa(n-1) + `) AS i`
		} else {
			q = `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ` + strconv.Itoa(n-1) + `) ` + q + ` s`
		}
		if _, err := db.sql.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
		if _, err := db.sql.ExecContext(ctx, `INSERT INTO archive_periods VALUES ('big', 'week:2026-W47', 0, 1, 1000000, 2, 0, '{}')`); err != nil {
			t.Fatal(err)
		}
		if db.postgres {
			db.sql.ExecContext(ctx, `ANALYZE archive_entries`)
		} else {
			db.sql.ExecContext(ctx, `ANALYZE`)
		}
		p := db.Past()
		timeIt := func(what string, fn func() error) {
			start := time.Now()
			if err := fn(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%-60s %v", what, time.Since(start))
		}
		timeIt("Rows (page 1000 of 50)", func() error { _, err := p.Rows(ctx, "big", "week:2026-W47", 50000, 50); return err })
		timeIt("Find one member", func() error { _, err := p.Find(ctx, "big", "week:2026-W47", []string{"m500000"}); return err })
		timeIt("GroupEnd (member in 900k tie at the bottom)", func() error {
			_, err := p.GroupEnd(ctx, "big", "week:2026-W47", board.Entry{Position: 100000, Score: 0})
			return err
		})
		timeIt("Range [-inf,+inf] offset 900000 limit 50", func() error {
			_, _, _, err := p.Range(ctx, "big", "week:2026-W47", math.Inf(-1), math.Inf(1), true, 900000, 50)
			return err
		})
		timeIt("Range [0,10] offset 0 limit 50", func() error {
			_, m, a, err := p.Range(ctx, "big", "week:2026-W47", 0, 10, true, 0, 50)
			t.Log("matched", m, "above", a)
			return err
		})
		timeIt("Search 'name99999' limit 20", func() error {
			es, err := p.Search(ctx, "big", "week:2026-W47", "name99999", 20)
			t.Log(len(es))
			return err
		})
		timeIt("Held", func() error { _, _, err := p.Held(ctx, "big", "week:2026-W47"); return err })
		timeIt("DB.Count (Settle/Statuses)", func() error { _, err := db.Count(ctx, "big", "week:2026-W47"); return err })
	})
}
