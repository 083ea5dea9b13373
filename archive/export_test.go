package archive

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/rows"
)

// TestExportAgrees: a period exported from Redis and, once its keys are gone,
// from the archive is the same file, ties and names included; exports past
// the reader's limit are refused as busy.
func TestExportAgrees(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		r := NewReader(f.store, db, 1)
		export := func(format string) string {
			var buf bytes.Buffer
			err := rows.Export(&buf, format, &f.b, w, board.Segment{}, func(fn func([]board.Entry) error) error { return r.Each(f.ctx, &f.b, w, fn) })
			if err != nil {
				t.Fatal(err)
			}
			return buf.String()
		}
		fromRedis, fromRedisJSON := export(rows.CSV), export(rows.JSON)
		if n := strings.Count(fromRedis, "\n"); n != fixtureMembers+1 {
			t.Fatalf("%d lines", n)
		}
		// The period is archived and its keys expire.
		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.a.Linger = time.Millisecond
		if _, err := f.a.Due(f.ctx); err != nil {
			t.Fatal(err)
		}
		waitGone(t, f, w)
		if got := export(rows.CSV); got != fromRedis {
			t.Fatalf("the archive's CSV differs from Redis':\n%.300s\n---\n%.300s", got, fromRedis)
		}
		if got := export(rows.JSON); got != fromRedisJSON {
			t.Fatal("the archive's JSON differs from Redis'")
		}
		// One at a time: a second export meanwhile is refused.
		err = r.Each(f.ctx, &f.b, w, func([]board.Entry) error {
			return r.Each(f.ctx, &f.b, w, func([]board.Entry) error { return nil })
		})
		if !errors.Is(err, board.ErrBusy) {
			t.Fatalf("a second export at once: %v", err)
		}
	})
}

func fieldsIf(yes bool) []board.Field {
	if yes {
		return []board.Field{{Name: "wins", Desc: true}}
	}
	return nil
}
