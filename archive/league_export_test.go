package archive

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
	"podium/rows"
)

// TestLeagueExport: an export of a league week has each member's tier,
// cohort and rank in it (as the cohort's page ranks it), and once the
// close has run its move and next tier; from Redis and, once the keys are
// gone, from the archive, the same file; the cohort is no attribute.
func TestLeagueExport(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newLeagueFixture(t, db, board.Competition, false)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		r := NewReader(f.store, db, 1)
		export := func(format string, seg board.Segment) string {
			var buf bytes.Buffer
			err := rows.Export(&buf, format, &f.b, w, seg, func(fn func([]board.Entry) error) error { return r.EachIn(f.ctx, &f.b, w, seg, fn) })
			if err != nil {
				t.Fatal(err)
			}
			return buf.String()
		}
		// p0299 has no place (as a member who scored before the board had
		// its league): its tier is its tier now.
		z, rdb := redisstore.ZSetKey(f.b.ID, w), f.store.Client()
		c, _ := rdb.HGet(f.ctx, z+":L", member(299)).Result()
		e, _ := rdb.HGet(f.ctx, z+":e", member(299)).Result()
		if err := rdb.ZRem(f.ctx, z+":g:L:"+c, e).Err(); err != nil || c == "" || e == "" {
			t.Fatalf("%q %q %v", c, e, err)
		}
		if err := rdb.HDel(f.ctx, z+":L", member(299)).Err(); err != nil {
			t.Fatal(err)
		}
		if err := f.store.Client().HSet(f.ctx, "lb:{arcade}:league:tier", member(299), 1).Err(); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(export(rows.CSV, board.Segment{}), "\n")
		if lines[0] != "rank,member,name,score,raw_score,country,league_tier,league_cohort,league_rank" {
			t.Fatalf("header before the close: %s", lines[0])
		}
		// p0003 (score 3) leads cohort 1 of Bronze; p0004 and p0000 tie last.
		pg, err := f.store.CohortPage(f.ctx, &f.b, w, 0, 1, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, e := range pg.Entries {
			want[e.Member] = fmt.Sprintf("Bronze,1,%d", e.Rank)
		}
		for _, l := range lines[1:] {
			fs := strings.Split(l, ",")
			if len(fs) < 9 {
				continue
			}
			if x, ok := want[fs[1]]; ok && strings.Join(fs[6:], ",") != x {
				t.Fatalf("%s: %s, want %s", fs[1], l, x)
			}
			delete(want, fs[1])
			if fs[1] == "q01" && strings.Join(fs[6:], ",") != "Gold,1,3" {
				t.Fatalf("q01: %s", l)
			}
		}
		if len(want) != 0 {
			t.Fatalf("not exported: %v", want)
		}
		if j := export(rows.JSON, board.Segment{}); strings.Contains(j, `"L"`) || !strings.Contains(j, `"member":"p0003","name":"p0003","score":"3","raw_score":3,"league_tier":"Bronze","league_cohort":1,"league_rank":1}`) {
			t.Fatalf("JSON before the close: %.600s", j)
		}
		// The close runs (Promote 2, Relegate 2): p0003 first, p0002 and
		// p0006 tie second, all three up; Bronze is the lowest tier.
		if err := f.a.closeLeague(f.ctx, &f.b, w); err != nil {
			t.Fatal(err)
		}
		closed := export(rows.CSV, board.Segment{})
		if !strings.HasPrefix(closed, "rank,member,name,score,raw_score,country,league_tier,league_cohort,league_rank,league_move,league_next\n") ||
			!strings.Contains(closed, ",p0003,p0003,3,3,,Bronze,1,1,up,Silver\n") || !strings.Contains(closed, ",q01,q01,1,1,,Gold,1,3,stay,Gold\n") ||
			!strings.Contains(closed, ",p0006,p0006,2,2,,Bronze,1,2,up,Silver\n") || !strings.Contains(closed, ",p0299,p0299,3,3,,Silver,,,,\n") {
			t.Fatalf("after the close: %s", closed)
		}
		closedJSON := export(rows.JSON, board.Segment{})
		if !strings.Contains(closedJSON, `"league_tier":"Bronze","league_cohort":1,"league_rank":1,"league_move":"up","league_next":"Silver"}`) {
			t.Fatalf("JSON after the close: %.600s", closedJSON)
		}
		no := board.Segment{Attr: "country", Value: "NO"}
		closedNO := export(rows.CSV, no)
		expireWeek(t, f, w)
		if got := export(rows.CSV, board.Segment{}); got != closed {
			t.Fatalf("the archive's CSV differs from Redis':\n%.500s\n---\n%.500s", got, closed)
		}
		if got := export(rows.JSON, board.Segment{}); got != closedJSON {
			t.Fatal("the archive's JSON differs from Redis'")
		}
		if got := export(rows.CSV, no); got != closedNO {
			t.Fatalf("the archive's CSV of a segment differs from Redis':\n%.500s\n---\n%.500s", got, closedNO)
		}
	})
}
