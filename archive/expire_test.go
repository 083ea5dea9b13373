package archive

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// reads is every kind of read of a period, as people and the API make them.
type reads struct {
	Pages        []board.Page
	Around       []board.Page
	AroundPos    []int
	Ranks        []board.Standing
	Search       [][]board.Entry
	Range        board.Page
	Ranges       []board.Page
	Count, Total int
	PageOf       int
	Views        []redisstore.ViewResult
}

func readAll(t *testing.T, s *redisstore.Store, b *board.Board, p board.Period) reads {
	t.Helper()
	ctx := context.Background()
	var r reads
	var err error
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	if r.Total, err = s.Total(ctx, b, p); err != nil {
		t.Fatal(err)
	}
	for off := 0; off < r.Total; off += testPage {
		pg, err := s.Page(ctx, b, p, off, testPage)
		must(err)
		r.Pages = append(r.Pages, pg)
	}
	// The top, members tied with others, one near the end, the last.
	for _, m := range []string{r.Pages[0].Entries[0].Member, "p0039", "p0100", member(fixtureMembers * 8 / 15), member(fixtureMembers - 1), "late"} {
		pg, pos, err := s.Around(ctx, b, p, m, 3)
		must(err)
		r.Around, r.AroundPos = append(r.Around, pg), append(r.AroundPos, pos)
	}
	if _, _, err := s.Around(ctx, b, p, "nobody", 3); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("around a member not on the board: %v", err)
	}
	r.Ranks, err = s.Ranks(ctx, b, p, []string{"p0039", "p0079", member(fixtureMembers - 2), "nobody", "late"})
	must(err)
	for _, q := range []string{"player 1", "PLAYER 2", "p00", "late l", "zz"} {
		es, _, err := s.Search(ctx, b, p, q, 20)
		must(err)
		r.Search = append(r.Search, es)
	}
	r.Range, err = s.RangeByScore(ctx, b, p, 10, 12, 5, 50)
	must(err)
	inf := math.Inf(1)
	for _, q := range [][4]float64{{39.2, 39.7, 0, 10}, {-5, -1, 0, 10}, {100, 200, 0, 10}, {10, 12, 500, 10}, {-inf, 3, 0, 20}, {37, inf, 40, 20}, {-inf, inf, fixtureMembers - 10, 20}} {
		pg, err := s.RangeByScore(ctx, b, p, q[0], q[1], int(q[2]), int(q[3]))
		must(err)
		r.Ranges = append(r.Ranges, pg)
	}
	r.Count, err = s.CountRange(ctx, b, p, 30, 39)
	must(err)
	r.PageOf, err = s.PageOf(ctx, b, p, member(fixtureMembers*8/15), 20)
	must(err)
	r.Views = s.ReadViews(ctx, []redisstore.ViewQuery{{Board: b, Period: p, Offset: 40, Limit: 25}, {Board: b, Period: p, Member: "p0007", Radius: 5}, {Board: b, Period: p, Member: "nobody", Radius: 2}})
	for i := range r.Views {
		if r.Views[i].Err != nil {
			if !errors.Is(r.Views[i].Err, board.ErrNotFound) {
				t.Fatalf("view %d: %v", i, r.Views[i].Err)
			}
			r.Views[i].Err = board.ErrNotFound // messages may differ; the meaning may not
		}
	}
	r.unkey()
	return r
}

// unkey drops the rows' order keys (board.Entry.Key): each store's own,
// Redis' entries, none in the archive, whose positions order its rows.
func (r *reads) unkey() {
	pages := [][]board.Page{r.Pages, r.Around, {r.Range}, r.Ranges}
	for _, v := range r.Views {
		pages = append(pages, []board.Page{v.Page})
	}
	var lists [][]board.Entry
	for _, ps := range pages {
		for _, pg := range ps {
			lists = append(lists, pg.Entries)
		}
	}
	for _, es := range append(lists, r.Search...) {
		for i := range es {
			es[i].Key = ""
		}
	}
}

// TestReadsAgreeAfterExpiry: a closed week, archived and expired from Redis,
// reads the same through every read as it did from Redis: ranks, ties,
// names, positions, windows, searches and ranges.
func TestReadsAgreeAfterExpiry(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		for _, c := range []struct {
			style  board.RankStyle
			order  board.Order
			fields bool
		}{{board.Competition, board.HigherIsBetter, true}, {board.Dense, board.HigherIsBetter, true}, {board.Ordinal, board.HigherIsBetter, true},
			{board.Competition, board.LowerIsBetter, true}, {board.Dense, board.LowerIsBetter, false}, {board.Competition, board.HigherIsBetter, false}} {
			style := c.style
			t.Run(fmt.Sprintf("%s-%s-fields:%v", style, c.order, c.fields), func(t *testing.T) {
				f := newFixtureOrder(t, db, c.order, c.fields)
				f.b.RankStyle, f.b.Retention = style, 0
				var err error
				if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
					t.Fatal(err)
				}
				w := f.week()
				late := redisstore.NewStore(f.store.Client(), redisstore.WithClock(func() time.Time { return w.End.Add(-time.Second) }))
				sub := board.Submission{Member: "late", Score: 39, Op: board.Set, Name: "Late Larry"}
				if c.fields {
					sub.Fields = []int64{2}
				}
				if _, err := late.Submit(f.ctx, f.b.ID, sub, board.Author{Actor: "test"}); err != nil {
					t.Fatal(err)
				}
				f.clock.Set(w.End.Add(2 * time.Hour))
				before := readAll(t, f.store, &f.b, w)
				f.a.Linger = time.Millisecond
				if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
					t.Fatalf("final pass: %d %v", n, err)
				}
				waitGone(t, f, w)
				after := readAll(t, f.store, &f.b, w)
				if !reflect.DeepEqual(before, after) {
					diff(t, before, after)
				}
				// Without the archive the expired period is gone, not empty.
				without := redisstore.NewStore(f.store.Client(), redisstore.WithClock(f.clock.Now))
				if _, err := without.Page(f.ctx, &f.b, w, 0, 10); !errors.Is(err, board.ErrGone) {
					t.Fatalf("page of an expired week without the archive: %v", err)
				}
				// An archive that lost the copy: gone too, never an empty board.
				if err := db.Delete(f.ctx, f.b.ID, w.String()); err != nil {
					t.Fatal(err)
				}
				for _, read := range []func() error{
					func() error { _, err := f.store.Page(f.ctx, &f.b, w, 0, 10); return err },
					func() error { _, err := f.store.Ranks(f.ctx, &f.b, w, []string{"p0001"}); return err },
					func() error { _, _, err := f.store.Search(f.ctx, &f.b, w, "p", 10); return err },
					func() error { _, err := f.store.Total(f.ctx, &f.b, w); return err },
				} {
					if err := read(); !errors.Is(err, board.ErrGone) {
						t.Fatalf("read of an expired week the archive lost: %v", err)
					}
				}
			})
		}
	})
}

// diff names the first read that differs.
func diff(t *testing.T, before, after reads) {
	t.Helper()
	bv, av := reflect.ValueOf(before), reflect.ValueOf(after)
	for i := range bv.NumField() {
		if !reflect.DeepEqual(bv.Field(i).Interface(), av.Field(i).Interface()) {
			if bv.Field(i).Kind() == reflect.Slice && bv.Field(i).Len() == av.Field(i).Len() {
				for j := range bv.Field(i).Len() {
					if x, y := bv.Field(i).Index(j).Interface(), av.Field(i).Index(j).Interface(); !reflect.DeepEqual(x, y) {
						t.Fatalf("%s[%d] differs:\nRedis   %+v\narchive %+v", bv.Type().Field(i).Name, j, x, y)
					}
				}
			}
			t.Fatalf("%s differs:\nRedis   %+v\narchive %+v", bv.Type().Field(i).Name, bv.Field(i).Interface(), av.Field(i).Interface())
		}
	}
}

// waitGone waits for a period's keys to expire.
func waitGone(t *testing.T, f *fixture, p board.Period) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		n, err := f.store.Count(f.ctx, &f.b, p)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still holds %d members in Redis", p, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRetention: a board keeps its newest closed periods of each kind in
// Redis, as many as its retention says; older ones expire once, and only
// once, their final copy is archived, and a crash between the copy and the
// expiry loses nothing.
func TestRetention(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		f.b.Retention = 1
		var err error
		if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
			t.Fatal(err)
		}
		f.a.Linger = time.Millisecond
		by := board.Author{Actor: "test"}
		submit := func(member string) {
			t.Helper()
			if _, err := f.store.Submit(f.ctx, f.b.ID, board.Submission{Member: member, Score: 5, Op: board.Set, Fields: []int64{0}}, by); err != nil {
				t.Fatal(err)
			}
		}
		w47 := f.week()
		w48, w49 := w47.Next(), w47.Next().Next()
		// W47 closed half an hour ago: its first pass runs; nothing expires.
		f.clock.Set(w48.Start.Add(30 * time.Minute))
		submit("w0")
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("first pass: %d %v", n, err)
		}
		// A week later the final pass of W47 is recorded, and the process
		// dies before it sets any expiry: the keys stay, the archive has it.
		f.clock.Set(w49.Start.Add(30 * time.Minute))
		submit("w1")
		if ok, err := f.a.copyPass(f.ctx, &f.b, w47, PassFinal); err != nil || !ok {
			t.Fatalf("final pass of %s: %v %v", w47, ok, err)
		}
		if n, _ := f.store.Count(f.ctx, &f.b, w47); n != fixtureMembers {
			t.Fatalf("W47 expired with no settle: %d left", n)
		}
		// The next run copies W48 once and expires W47 only: retention 1
		// keeps W48, the newest closed week; W49 is in progress.
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("run after the crash: %d %v", n, err)
		}
		waitGone(t, f, w47)
		if n, _ := f.store.Count(f.ctx, &f.b, w48); n != 1 {
			t.Fatalf("W48 holds %d members in Redis, want 1", n)
		}
		stored, _ := f.store.StoredPeriods(f.ctx, &f.b)
		if len(stored) != 3 { // W48, W49, all time
			t.Fatalf("Redis lists %v", stored)
		}
		if n, _ := db.Count(f.ctx, f.b.ID, w47.String()); n != fixtureMembers {
			t.Fatalf("the archive holds %d rows of W47", n)
		}
		st, err := f.a.Statuses(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, s := range st {
			got[s.Period.String()], _, _ = strings.Cut(s.State, ",")
		}
		want := map[string]string{w47.String(): "archived", w48.String(): "archived once", w49.String(): "in progress"}
		if !reflect.DeepEqual(got, want) || !strings.HasSuffix(st[2].State, "only in the archive") {
			t.Fatalf("statuses %+v, want %v", st, want)
		}
		// An expired week no longer changes; a kept one is copied again after a change.
		if _, err := f.store.RemoveMember(f.ctx, f.b.ID, "p0001", &w47, by); !errors.Is(err, board.ErrArchived) {
			t.Fatalf("remove from an expired week: %v", err)
		}
		if _, err := f.store.ResetPeriod(f.ctx, f.b.ID, w47, by); !errors.Is(err, board.ErrArchived) {
			t.Fatalf("reset of an expired week: %v", err)
		}
		if _, err := f.store.RemoveMember(f.ctx, f.b.ID, "w0", nil, by); err != nil {
			t.Fatal(err)
		}
		if n, err := f.a.Due(f.ctx); err != nil || n != 1 {
			t.Fatalf("pass after a removal from W48: %d %v", n, err)
		}
		if n, _ := db.Count(f.ctx, f.b.ID, w48.String()); n != 0 {
			t.Fatalf("the archive still holds %d rows of W48", n)
		}
		// Final passes; then a reset of the kept, archived W49 drops its copy.
		f.clock.Set(w49.End.Add(2 * time.Hour))
		if n, err := f.a.Due(f.ctx); err != nil || n != 2 {
			t.Fatalf("final passes of W48 and W49: %d %v", n, err)
		}
		waitGone(t, f, w48)
		if _, err := f.store.ResetPeriod(f.ctx, f.b.ID, w49, by); err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.Due(f.ctx); err != nil {
			t.Fatal(err)
		}
		if ps, _ := db.Periods(f.ctx, f.b.ID); len(ps) != 2 || ps[0].Period == w49.String() || ps[1].Period == w49.String() {
			t.Fatalf("archived periods after a reset: %+v", ps)
		}
		// W47 twice, W48 three times, W49 once; W47 and W48 expired; W49 dropped.
		if st := f.a.Stats(); st.PeriodsCopied != 6 || st.RowsCopied != fixtureMembers+fixtureMembers+1+0+0+1 || st.Expired != 2 || st.Dropped != 1 {
			t.Fatalf("stats %+v", st)
		}
	})
}
