package archive

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// newLeagueFixture makes a weekly league board (cohorts of 7) with the
// fixture's members in Bronze, scores 0-3 (ties in every cohort), and 40
// more in Silver and Gold; p0005's score is removed (it keeps its place).
func newLeagueFixture(t *testing.T, db *DB, style board.RankStyle, withFields bool) *fixture {
	t.Helper()
	def := board.Board{ID: "arcade", Title: "Arcade", Periods: []board.Kind{board.Weekly, board.AllTime}, RankStyle: style,
		Fields: fieldsIf(withFields), Segments: []string{"country"}, Retention: board.DefaultRetention,
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: 7, Promote: 2, Relegate: 2}}
	f := newFixtureWith(t, db, def, func(i int, sub *board.Submission) {
		sub.Score = float64(i % 4)
		if i%5 == 0 {
			sub.Segments = map[string]string{"country": "NO"}
		}
		if withFields {
			sub.Fields = []int64{int64(i % 2)}
		}
	})
	var subs []board.Submission
	for i := range 40 {
		m := fmt.Sprintf("q%02d", i)
		if err := f.store.Client().HSet(f.ctx, "lb:{arcade}:league:tier", m, 1+i%2).Err(); err != nil {
			t.Fatal(err)
		}
		sub := board.Submission{Member: m, Score: float64(i % 3), Op: board.Set}
		if withFields {
			sub.Fields = []int64{int64(i % 2)}
		}
		subs = append(subs, sub)
	}
	if _, err := f.store.SubmitBatch(f.ctx, f.b.ID, subs, board.BatchOptions{By: board.Author{Actor: "test"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.RemoveMember(f.ctx, f.b.ID, member(5), ptr(f.week()), board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	return f
}

func ptr[T any](v T) *T { return &v }

// leagueReads is every league read of a period: its tiers and cohorts,
// each cohort's pages, and a few members' places.
type leagueReads struct {
	Tiers  []redisstore.LeagueTier
	Pages  map[string][]board.Page
	Places []redisstore.LeaguePlace
}

func readLeague(t *testing.T, f *fixture, p board.Period) leagueReads {
	t.Helper()
	r := leagueReads{Pages: map[string][]board.Page{}}
	var err error
	if r.Tiers, err = f.store.LeagueTiers(f.ctx, &f.b, p); err != nil {
		t.Fatal(err)
	}
	for _, tier := range r.Tiers {
		for _, c := range tier.Cohorts {
			for off := 0; ; off += 3 {
				pg, err := f.store.CohortPage(f.ctx, &f.b, p, c.Tier, c.Cohort, off, 3)
				if err != nil {
					t.Fatalf("cohort %d/%d at %d: %v", c.Tier, c.Cohort, off, err)
				}
				for i := range pg.Entries {
					pg.Entries[i].Key = ""
				}
				k := fmt.Sprintf("%d/%d", c.Tier, c.Cohort)
				r.Pages[k] = append(r.Pages[k], pg)
				if off+3 >= pg.Total {
					break
				}
			}
		}
	}
	for _, m := range []string{member(0), member(3), member(5), member(6), member(299), "q00", "q01", "q39", "nobody"} {
		pl, err := f.store.LeagueOf(f.ctx, &f.b, p, m)
		if err != nil {
			t.Fatalf("league of %s: %v", m, err)
		}
		r.Places = append(r.Places, pl)
	}
	return r
}

// TestCohortsOutliveRedis: a league week, archived and expired from Redis,
// answers its tiers, cohort pages and members' places from the archive as
// Redis did, ties included, in each rank style; with the close's results
// archived, a member whose score was removed keeps its place, and the
// cohort its size. The cohort is no attribute: the rows' values leave it
// out, and a member's data shows none.
func TestCohortsOutliveRedis(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		for _, c := range []struct {
			style  board.RankStyle
			fields bool
		}{{board.Competition, false}, {board.Dense, true}, {board.Ordinal, false}} {
			t.Run(fmt.Sprintf("%s-%v", c.style, c.fields), func(t *testing.T) {
				f := newLeagueFixture(t, db, c.style, c.fields)
				w := f.week()
				f.clock.Set(w.End.Add(2 * time.Hour))
				before := readLeague(t, f, w)
				if len(before.Tiers) != 3 || len(before.Tiers[0].Cohorts) != 43 || len(before.Tiers[1].Cohorts) != 3 || len(before.Tiers[2].Cohorts) != 3 {
					t.Fatalf("tiers: %+v", before.Tiers)
				}
				tied := false
				for _, pg := range before.Pages["0/1"] {
					for i, e := range pg.Entries {
						tied = tied || (i > 0 && pg.Entries[i-1].Rank == e.Rank)
					}
				}
				if p5 := before.Places[2]; !p5.Placed || p5.Standing.Ranked || p5.Size != 7 || p5.Standing.Total != 6 {
					t.Fatalf("the member whose score was removed: %+v", p5)
				}
				if tied != (c.style != board.Ordinal) {
					t.Fatalf("cohort 0/1 ties: %v", tied)
				}
				// The close's results, as the close writes them: every member
				// placed (ranks play no part in these reads).
				places, err := f.store.Client().HGetAll(f.ctx, redisstore.ZSetKey(f.b.ID, w)+":L").Result()
				if err != nil || len(places) != fixtureMembers+40 {
					t.Fatalf("places: %d %v", len(places), err)
				}
				var rs []board.LeagueResult
				for m, pl := range places {
					tier, cohort, _ := parsePlace(pl)
					rs = append(rs, board.LeagueResult{Member: m, Tier: tier, Cohort: cohort, Next: tier})
				}
				if err := db.PutLeagueResults(f.ctx, f.b.ID, w.String(), rs); err != nil {
					t.Fatal(err)
				}
				expireWeek(t, f, w)
				after := readLeague(t, f, w)
				if !reflect.DeepEqual(before.Tiers, after.Tiers) {
					t.Fatalf("tiers:\nRedis   %+v\narchive %+v", before.Tiers, after.Tiers)
				}
				for k, x := range before.Pages {
					if y := after.Pages[k]; !reflect.DeepEqual(x, y) {
						t.Fatalf("cohort %s:\nRedis   %+v\narchive %+v", k, x, y)
					}
				}
				for i := range before.Places {
					if !reflect.DeepEqual(before.Places[i], after.Places[i]) {
						t.Fatalf("place of %s:\nRedis   %+v\narchive %+v", before.Places[i].Member, before.Places[i], after.Places[i])
					}
				}
				rows, _, err := db.MemberRows(f.ctx, f.b.ID, member(0), 10)
				if want := map[string]string{"country": "NO"}; err != nil || len(rows) != 1 || !reflect.DeepEqual(rows[0].Segments, want) {
					t.Fatalf("member rows of %s: %+v %v", member(0), rows, err)
				}
			})
		}
	})
}

// TestLeagueResults: a close's results are kept per period, listed by
// tier, cohort and rank (the unranked, then the idle, last), then member;
// writing them again replaces them; a member's erasure renames its rows,
// idle periods' too; dropping the board drops them.
func TestLeagueResults(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		ctx, w := f.ctx, "week:2026-W47"
		if rs, ok, err := db.LeagueResults(ctx, "chess", w); err != nil || ok || len(rs) != 0 {
			t.Fatalf("before the close: %v %v %v", rs, ok, err)
		}
		first := []board.LeagueResult{
			{Member: "zed", Tier: 1, Cohort: 1, Rank: 1, Move: board.Up, Next: 2},
			{Member: "idle", Tier: 0, Move: board.Stay, Next: 0},
			{Member: "gone", Tier: 0, Cohort: 1, Move: board.Down, Next: 0},
			{Member: "bob", Tier: 0, Cohort: 1, Rank: 2, Next: 0},
			{Member: "amy", Tier: 0, Cohort: 1, Rank: 2, Next: 0},
			{Member: "cy", Tier: 0, Cohort: 2, Rank: 1, Move: board.Up, Next: 1},
			{Member: "Ann", Tier: 0, Cohort: 1, Rank: 1, Move: board.Up, Next: 1},
		}
		if err := db.PutLeagueResults(ctx, "chess", w, first); err != nil {
			t.Fatal(err)
		}
		if err := db.PutLeagueResults(ctx, "chess", "week:2026-W46", first[1:2]); err != nil {
			t.Fatal(err)
		}
		if err := db.PutLeagueResults(ctx, "other", w, first[:1]); err != nil {
			t.Fatal(err)
		}
		order := func(p string) string {
			rs, ok, err := db.LeagueResults(ctx, "chess", p)
			if err != nil || !ok {
				t.Fatalf("results of %s: %v %v", p, ok, err)
			}
			var out []string
			for _, r := range rs {
				out = append(out, fmt.Sprintf("%s:%d/%d#%d%s>%d", r.Member, r.Tier, r.Cohort, r.Rank, r.Move, r.Next))
			}
			return fmt.Sprint(out)
		}
		if got, want := order(w), "[Ann:0/1#1up>1 amy:0/1#2stay>0 bob:0/1#2stay>0 gone:0/1#0down>0 cy:0/2#1up>1 idle:0/0#0stay>0 zed:1/1#1up>2]"; got != want {
			t.Fatalf("results:\n got %s\nwant %s", got, want)
		}
		// Again (a pass that crashed after writing them), with one fewer.
		if err := db.PutLeagueResults(ctx, "chess", w, first[1:]); err != nil {
			t.Fatal(err)
		}
		if got, want := order(w), "[Ann:0/1#1up>1 amy:0/1#2stay>0 bob:0/1#2stay>0 gone:0/1#0down>0 cy:0/2#1up>1 idle:0/0#0stay>0]"; got != want {
			t.Fatalf("results written again:\n got %s\nwant %s", got, want)
		}
		if err := db.PutLeagueResults(ctx, "chess", w, append(first[1:2], first[1])); err == nil {
			t.Fatal("a member twice in one period's results")
		}
		if got := order(w); got != "[Ann:0/1#1up>1 amy:0/1#2stay>0 bob:0/1#2stay>0 gone:0/1#0down>0 cy:0/2#1up>1 idle:0/0#0stay>0]" {
			t.Fatalf("a refused write changed the results: %s", got)
		}
		// A member's data; then its erasure, in both periods (it played
		// in neither, so the archive holds no entry of it).
		mine, more, err := db.MemberLeagueResults(ctx, "chess", "idle", 10)
		if err != nil || more || len(mine) != 2 || mine[0].Period != w || mine[1].Period != "week:2026-W46" {
			t.Fatalf("idle's results: %+v %v %v", mine, more, err)
		}
		out, err := f.a.EraseMember(ctx, &f.b, redisstore.Redaction{Board: "chess", Member: "idle", Pseudonym: "erased-1", Cut: "0-0"})
		if err != nil || out.Leagues != 2 {
			t.Fatalf("erase: %+v %v", out, err)
		}
		if got := order("week:2026-W46"); got != "[erased-1:0/0#0stay>0]" {
			t.Fatalf("after the erasure: %s", got)
		}
		if mine, _, _ := db.MemberLeagueResults(ctx, "chess", "idle", 10); len(mine) != 0 {
			t.Fatalf("the erased member still has results: %+v", mine)
		}
		if _, err := db.DropBoard(ctx, "chess"); err != nil {
			t.Fatal(err)
		}
		if rs, ok, err := db.LeagueResults(ctx, "chess", w); err != nil || ok || len(rs) != 0 {
			t.Fatalf("after dropping the board: %v %v %v", rs, ok, err)
		}
		if _, ok, _ := db.LeagueResults(ctx, "other", w); !ok {
			t.Fatal("dropping a board dropped another's results")
		}
	})
}

// TestMigrationAddsLeagues: a league week archived by the version before
// the archive kept cohorts (schema 6) says its cohorts are gone, not
// empty, once its keys have left Redis; a copy without them is made again
// before the keys go, and then answers as Redis did.
func TestMigrationAddsLeagues(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, fresh *DB) {
		ctx := context.Background()
		target := filepath.Join(t.TempDir(), "old.db")
		if fresh.postgres {
			target = psrv.Database(t)
		}
		old, err := open(ctx, target, 6)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := old.sql.ExecContext(ctx, `INSERT INTO archive_periods (board, period, starts_at, ends_at, members, pass, archived_at, definition, segments)
			VALUES ('arcade', 'week:2026-W46', 1, 2, 1, 2, 3, '{"league":{"kind":"week","tiers":["a","b"],"promote":1,"relegate":1}}', 0)`); err != nil {
			t.Fatal(err)
		}
		if _, err := old.sql.ExecContext(ctx, `INSERT INTO archive_entries (board, period, position, member, name, name_lc, score, rank, fields)
			VALUES ('arcade', 'week:2026-W46', 0, 'ann', 'ann', 'ann', 5, 1, '[]')`); err != nil {
			t.Fatal(err)
		}
		old.Close()
		db, err := Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		rdb := newRedis(t)
		c := &clock{}
		c.Set(time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC))
		store := redisstore.NewStore(rdb, redisstore.WithClock(c.Now), redisstore.WithDefinitionTTL(0), redisstore.WithPast(db.Past()))
		b, err := store.CreateBoard(ctx, board.Board{ID: "arcade", Title: "Arcade", Periods: []board.Kind{board.Weekly},
			League: &board.League{Kind: board.Weekly, Tiers: []string{"a", "b"}, Promote: 1, Relegate: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if err := rdb.HSet(ctx, redisstore.ArchiveState(b.ID), "week:2026-W46", "2 1 x2").Err(); err != nil {
			t.Fatal(err)
		}
		p46, _ := board.ParsePeriod(board.Weekly, "2026-W46", b.Location())
		if _, err := store.CohortPage(ctx, &b, p46, 0, 1, 0, 10); !errors.Is(err, board.ErrGone) {
			t.Fatalf("a cohort of W46 after the migration: %v", err)
		}
		if _, err := store.LeagueTiers(ctx, &b, p46); !errors.Is(err, board.ErrGone) {
			t.Fatalf("the tiers of W46 after the migration: %v", err)
		}
		if _, err := store.LeagueOf(ctx, &b, p46, "ann"); !errors.Is(err, board.ErrGone) {
			t.Fatalf("ann's league in W46 after the migration: %v", err)
		}
	})
	backends(t, func(t *testing.T, db *DB) {
		f := newLeagueFixture(t, db, board.Competition, false)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		if _, err := db.sql.ExecContext(f.ctx, `DELETE FROM archive_segments WHERE attr = 'L'`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.sql.ExecContext(f.ctx, `UPDATE archive_periods SET cohorts = NULL`); err != nil {
			t.Fatal(err)
		}
		before := readLeague(t, f, w)
		f.b.Retention = 0
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.a.Linger = time.Millisecond
		if n, err := f.a.Due(f.ctx); err != nil || n != 0 {
			t.Fatalf("pass that finds the copy without cohorts: %d %v", n, err)
		}
		if raw, err := f.a.rawStates(f.ctx, &f.b); err != nil || expired(raw[w.String()]) {
			t.Fatalf("the week was let go without its cohorts archived: %q %v", raw[w.String()], err)
		}
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("pass that copies it again: %d %v", n, err)
		}
		waitGone(t, f, w)
		after := readLeague(t, f, w)
		for k, x := range before.Pages {
			if y := after.Pages[k]; !reflect.DeepEqual(x, y) {
				t.Fatalf("cohort %s:\nRedis   %+v\narchive %+v", k, x, y)
			}
		}
	})
}
