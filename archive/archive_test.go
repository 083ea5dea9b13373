package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/pgtest"
	"podium/internal/redistest"
	"podium/redisstore"
)

var (
	rsrv *redistest.Server
	psrv *pgtest.Server
)

// TestMain starts a private Redis and a private PostgreSQL for the package.
func TestMain(m *testing.M) {
	var err error
	if rsrv, err = redistest.StartWith("--databases", strconv.Itoa(redisDBs)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if psrv, err = pgtest.Start(); err != nil {
		rsrv.Close()
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pageSize = testPage // copies of fixtures take several pages
	for n := range redisDBs {
		freeDBs <- n
	}
	code := m.Run()
	psrv.Close()
	rsrv.Close()
	os.Exit(code)
}

// redisDBs is how many logical databases the package's Redis has: one
// for each test that runs at a time, and more.
const redisDBs = 64

// freeDBs holds the numbers of the logical databases no test is using.
var freeDBs = make(chan int, redisDBs)

// newRedis is a client of a logical database of the package's Redis that
// is the test's alone while it runs, empty: tests run in parallel on the
// one server and never see each other's boards (which Due and Discover
// list). Use rsrv.ClientDB(t, rdb.Options().DB) for a second client.
func newRedis(t *testing.T) *redis.Client {
	t.Helper()
	n := <-freeDBs
	t.Cleanup(func() { freeDBs <- n }) // after the clients below are closed
	rdb := rsrv.ClientDB(t, n)
	if err := rdb.FlushDB(context.Background()).Err(); err != nil { // what the last test left
		t.Fatal(err)
	}
	return rdb
}

// backends runs a test against an empty archive in each database, the
// two in parallel.
func backends(t *testing.T, run func(t *testing.T, db *DB)) {
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			target := filepath.Join(t.TempDir(), "archive.db")
			if name == "postgres" {
				target = psrv.Database(t)
			}
			db, err := Open(context.Background(), target)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			run(t, db)
		})
	}
}

// clock is a settable clock shared by a test's stores.
type clock struct{ ns atomic.Int64 }

func (c *clock) Now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Set(t time.Time)     { c.ns.Store(t.UnixNano()) }
func (c *clock) Add(d time.Duration) { c.ns.Add(int64(d)) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

type fixture struct {
	ctx   context.Context
	clock *clock
	store *redisstore.Store
	b     board.Board
	a     *Archiver
}

// newFixture makes a weekly board on a fresh Redis database, with scores
// in the week of 2026-11-16 (2026-W47): ties, names and an extra field.
func newFixture(t *testing.T, db *DB) *fixture {
	t.Helper()
	return newFixtureOrder(t, db, board.HigherIsBetter, true)
}

// newFixtureOrder is newFixture with the board's order, with or without
// its extra field.
func newFixtureOrder(t *testing.T, db *DB, order board.Order, withFields bool) *fixture {
	t.Helper()
	def := board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}, Order: order,
		Fields: fieldsIf(withFields), Retention: board.DefaultRetention}
	return newFixtureWith(t, db, def, func(i int, sub *board.Submission) {
		if withFields {
			sub.Fields = []int64{int64(i % 3)}
		}
		if i%100 == 0 {
			sub.Name = fmt.Sprintf("Player %d", i)
		}
	})
}

// testPage is the copy's page size in tests (pageSize, set in TestMain),
// so that a fixture of a few hundred members takes several pages, as
// thousands do in production.
const testPage = 100

// fixtureMembers is how many members a fixture writes: three pages of the
// copy. member(i) is the i-th of them.
const fixtureMembers = 3 * testPage

func member(i int) string { return fmt.Sprintf("p%04d", i) }

// newFixtureWith makes board def on an empty Redis and writes
// fixtureMembers members (more than a page of the copy), p0000 to p0299
// with scores 0-39, each as fill leaves it.
func newFixtureWith(t *testing.T, db *DB, def board.Board, fill func(i int, sub *board.Submission)) *fixture {
	t.Helper()
	rdb := newRedis(t)
	f := &fixture{ctx: context.Background(), clock: &clock{}}
	f.clock.Set(time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC))
	f.store = redisstore.NewStore(rdb, redisstore.WithClock(f.clock.Now), redisstore.WithDefinitionTTL(0), redisstore.WithPast(db.Past()))
	var err error
	if f.b, err = f.store.CreateBoard(f.ctx, def); err != nil {
		t.Fatal(err)
	}
	var subs []board.Submission
	for i := range fixtureMembers {
		sub := board.Submission{Member: member(i), Score: float64(i % 40), Op: board.Set}
		fill(i, &sub)
		subs = append(subs, sub)
	}
	for len(subs) > 0 {
		n := min(len(subs), board.MaxBatch)
		if _, err := f.store.SubmitBatch(f.ctx, f.b.ID, subs[:n], board.BatchOptions{By: board.Author{Actor: "test"}}); err != nil {
			t.Fatal(err)
		}
		subs = subs[n:]
	}
	f.a = &Archiver{Store: f.store, DB: db, Grace: time.Hour, Log: quiet}
	return f
}

func (f *fixture) week() board.Period {
	p, err := board.ParsePeriod(board.Weekly, "2026-W47", f.b.Location())
	if err != nil {
		panic(err)
	}
	return p
}

// same checks the archive holds exactly what Redis shows for a period.
func (f *fixture) same(t *testing.T, p board.Period) {
	t.Helper()
	total, _ := f.store.Count(f.ctx, &f.b, p)
	for off := 0; off < total; off += testPage {
		pg, err := f.store.Page(f.ctx, &f.b, p, off, testPage)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := f.a.DB.Past().Rows(f.ctx, f.b.ID, p.String(), off, testPage)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(pg.Entries) {
			t.Fatalf("at %d: archive has %d rows, Redis %d", off, len(rows), len(pg.Entries))
		}
		for i, e := range pg.Entries {
			r := rows[i]
			if r.Position != e.Position || r.Rank != e.Rank || r.Member != e.Member || r.Name != e.Name || r.Score != e.Score || fmt.Sprint(r.Fields) != fmt.Sprint(e.Fields) {
				t.Fatalf("row %d: archive %+v, Redis %+v", off+i, r, e)
			}
		}
	}
}

func TestArchiveClosedPeriod(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		w := f.week()
		// In progress: nothing is due, and an operator cannot force it.
		if n, err := f.a.Due(f.ctx); err != nil || n != 0 {
			t.Fatalf("due during the week: %d %v", n, err)
		}
		if _, err := f.a.Period(f.ctx, &f.b, w); !errors.Is(err, ErrInProgress) {
			t.Fatalf("forced during the week: %v", err)
		}
		// Closed: the first pass copies it, exactly as Redis has it.
		f.clock.Set(w.End.Add(time.Minute))
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("first pass: %d %v", n, err)
		}
		f.same(t, w)
		if n, _ := f.a.Due(f.ctx); n != 0 {
			t.Fatalf("the first pass ran again: %d", n)
		}
		// A late write lands in the closed week (a writer whose clock lags).
		late := redisstore.NewStore(f.store.Client(), redisstore.WithClock(func() time.Time { return w.End.Add(-time.Second) }))
		if _, err := late.Submit(f.ctx, f.b.ID, board.Submission{Member: "late", Score: 39, Op: board.Set, Name: "Late Larry", Fields: []int64{5}}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		if n, _ := f.a.DB.Count(f.ctx, f.b.ID, w.String()); n != fixtureMembers {
			t.Fatalf("archive changed before the grace pass: %d", n)
		}
		// After the grace period the final pass has it.
		f.clock.Set(w.End.Add(time.Hour + time.Minute))
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		f.same(t, w)
		if rows, _ := f.a.DB.Past().Rows(f.ctx, f.b.ID, w.String(), 0, 1); rows[0].Member != "late" || rows[0].Name != "Late Larry" {
			t.Fatalf("first row %+v", rows)
		}
		if n, _ := f.a.Due(f.ctx); n != 0 {
			t.Fatalf("the final pass ran again: %d", n)
		}
		// An operator's run copies again and changes nothing.
		if n, err := f.a.Period(f.ctx, &f.b, w); err != nil || n != fixtureMembers+1 {
			t.Fatalf("forced run: %d %v", n, err)
		}
		f.same(t, w)
		st, err := f.a.Statuses(f.ctx)
		if err != nil || len(st) != 1 {
			t.Fatalf("statuses %+v %v", st, err)
		}
		for _, s := range st {
			if s.Period.String() == w.String() && (s.State != "archived" || s.InRedis != fixtureMembers+1 || s.Archived != fixtureMembers+1) {
				t.Fatalf("status %+v", s)
			}
		}
		ps, err := f.a.DB.Periods(f.ctx, f.b.ID)
		if err != nil || len(ps) != 1 || ps[0].Pass != PassFinal || ps[0].Members != fixtureMembers+1 {
			t.Fatalf("archived periods %+v %v", ps, err)
		}
		// Past winners: the period's top three, as Redis ranks them.
		tops, total, err := db.Winners(f.ctx, f.b.ID, board.Weekly, 0, 10)
		if err != nil || total != 1 || len(tops) != 1 || tops[0].Period != w.String() || tops[0].Members != fixtureMembers+1 || len(tops[0].Top) != 3 {
			t.Fatalf("winners %+v %d %v", tops, total, err)
		}
		top, _ := f.store.Page(f.ctx, &f.b, w, 0, 3)
		for i, e := range top.Entries {
			if r := tops[0].Top[i]; r.Member != e.Member || r.Rank != e.Rank || r.Score != e.Score {
				t.Fatalf("winner %d: %+v, Redis %+v", i, r, e)
			}
		}
		if tops, total, _ := db.Winners(f.ctx, f.b.ID, board.Daily, 0, 10); total != 0 || len(tops) != 0 {
			t.Fatalf("daily winners of a weekly board: %+v", tops)
		}
	})
}

// TestArchiveOnce: replicas running at once archive each period once.
func TestArchiveOnce(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		f.clock.Set(f.week().End.Add(time.Minute))
		var copied atomic.Int64
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a := &Archiver{Store: f.store, DB: db, Grace: time.Hour, Log: quiet}
				n, err := a.Due(f.ctx)
				if err != nil {
					t.Error(err)
				}
				copied.Add(int64(n))
			}()
		}
		wg.Wait()
		if n := copied.Load(); n != 1 {
			t.Fatalf("the period was copied %d times", n)
		}
		f.same(t, f.week())
	})
}

// TestCopyIsConsistent: the copy reads a snapshot, so a removal and a late
// write made while it pages through Redis change nothing in it; an earlier
// pass never replaces a final copy; a deleted board's copy is kept.
func TestCopyIsConsistent(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		snap, err := f.store.Snapshot(f.ctx, &f.b, w, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		first, _ := snap.Page(f.ctx, 0, testPage)
		// Writes after the snapshot: the top member removed, a member added.
		if _, err := f.store.RemoveMember(f.ctx, f.b.ID, first.Entries[0].Member, &w, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		again, _ := snap.Page(f.ctx, 0, testPage)
		second, _ := snap.Page(f.ctx, testPage, testPage)
		third, _ := snap.Page(f.ctx, 2*testPage, testPage)
		if fmt.Sprint(again.Entries) != fmt.Sprint(first.Entries) || len(first.Entries)+len(second.Entries)+len(third.Entries) != fixtureMembers || snap.Total != fixtureMembers {
			t.Fatalf("the snapshot changed: %d + %d + %d rows of %d", len(first.Entries), len(second.Entries), len(third.Entries), snap.Total)
		}
		if err := snap.Close(f.ctx); err != nil {
			t.Fatal(err)
		}
		// The final pass copies what Redis holds now.
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("final pass: %d %v", n, err)
		}
		f.same(t, w)
		// A first pass arriving late does not replace the final copy.
		if _, _, err := f.a.copy(f.ctx, &f.b, w, PassFirst, ""); err == nil {
			t.Fatal("an earlier pass replaced the final copy")
		}
		// A deleted board: no copy can be made, the archived one stays.
		if err := f.store.DeleteBoard(f.ctx, f.b.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.a.copy(f.ctx, &f.b, w, PassFinal, ""); !errors.Is(err, board.ErrNotFound) {
			t.Fatalf("copy of a deleted board: %v", err)
		}
		if n, _ := db.Count(f.ctx, f.b.ID, w.String()); n != fixtureMembers-1 {
			t.Fatalf("the archive holds %d rows", n)
		}
	})
}
