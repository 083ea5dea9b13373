package archive

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// DumpTables reads every row of every archive table as text, for tests
// that look for a string anywhere in the archive.
func dumpTables(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	for _, table := range []string{"archive_periods", "archive_entries", "archive_teams", "archive_audit", "archive_schema"} {
		rs, err := db.sql.QueryContext(context.Background(), "SELECT * FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rs.Columns()
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					vals[i] = string(bs)
				}
			}
			fmt.Fprintln(&b, table, vals)
		}
		rs.Close()
	}
	return b.String()
}

// TestEraseInTheArchive: a member's archived rows take the pseudonym, the
// others' rows (ranks, places) stay as they were, its archived audit
// entries lose its id and name, and a second run changes nothing.
func TestEraseInTheArchive(t *testing.T) {
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		week := f.week()
		f.clock.Set(week.End.Add(2 * time.Hour))
		if _, err := f.a.Period(f.ctx, &f.b, week); err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.CopyAudit(f.ctx); err != nil {
			t.Fatal(err)
		}
		const who, name = "p0100", "Player 100"
		rows, more, err := db.MemberRows(f.ctx, f.b.ID, who, 10)
		if err != nil || more || len(rows) != 1 || rows[0].Name != name || rows[0].Period != week.String() || rows[0].Members != fixtureMembers {
			t.Fatalf("the member's rows: %+v %v %v", rows, more, err)
		}
		names, holds, err := db.MemberTraces(f.ctx, f.b.ID, who)
		if err != nil || !holds || fmt.Sprint(names) != "["+name+"]" {
			t.Fatalf("traces: %q %v %v", names, holds, err)
		}
		before, err := db.Past().Rows(f.ctx, f.b.ID, week.String(), 0, fixtureMembers)
		if err != nil {
			t.Fatal(err)
		}
		p := board.NewPseudonym()
		st, err := f.store.EraseMember(f.ctx, f.b.ID, redisstore.Erasure{Member: who, Pseudonym: p, By: board.Author{Actor: "test"}})
		if err != nil || !st.Erased {
			t.Fatalf("the Redis step: %+v %v", st, err)
		}
		r := redisstore.Redaction{Board: f.b.ID, Member: who, Pseudonym: p, Names: names, Cut: st.Record.Cut}
		streams, _ := f.store.AuditStreams(f.ctx, f.b.ID)
		for _, s := range streams {
			if _, err := f.store.RedactStream(f.ctx, s, r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := f.a.EraseMember(f.ctx, &f.b, r)
		if err != nil || got.Periods != 1 || got.Audit == 0 {
			t.Fatalf("erased in the archive: %+v %v", got, err)
		}
		if dump := dumpTables(t, db); strings.Contains(dump, who) || strings.Contains(dump, name) {
			t.Errorf("the archive still holds the member:\n%s", excerpt(dump, who, name))
		}
		after, err := db.Past().Rows(f.ctx, f.b.ID, week.String(), 0, fixtureMembers)
		if err != nil || len(after) != len(before) {
			t.Fatalf("rows after: %d %v", len(after), err)
		}
		for i, e := range before {
			if e.Member == who {
				e.Member, e.Name = p, p
			}
			if a := after[i]; a.Member != e.Member || a.Name != e.Name || a.Rank != e.Rank || a.Score != e.Score {
				t.Errorf("row %d: %+v, want %+v", i, a, e)
			}
		}
		if _, holds, _ := db.MemberTraces(f.ctx, f.b.ID, who); holds {
			t.Error("the archive still holds traces of the member")
		}
		if again, err := f.a.EraseMember(f.ctx, &f.b, r); err != nil || again != (Erased{}) {
			t.Errorf("a second run: %+v %v", again, err)
		}
	})
}

// excerpt is the lines of text that hold one of words.
func excerpt(text string, words ...string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, w := range words {
			if strings.Contains(line, w) {
				out = append(out, line)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}
