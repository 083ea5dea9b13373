package redisstore

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"podium/board"
)

// publicAndLive reads a page of kind k as the public and as an admin.
func (f *fixture) publicAndLive(b *board.Board, k board.Kind) (public, live []string) {
	f.t.Helper()
	p := b.Current(k, f.clock.Now())
	pub, err := f.store.Page(f.ctx, b, p, 0, 20)
	if err != nil {
		f.t.Fatalf("public page: %v", err)
	}
	adm, err := f.store.Page(LiveStandings(f.ctx), b, p, 0, 20)
	if err != nil {
		f.t.Fatalf("live page: %v", err)
	}
	return rows(pub), rows(adm)
}

func (f *fixture) fresh(id string) *board.Board {
	f.t.Helper()
	b, err := f.store.readBoard(f.ctx, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return &b
}

// TestFreezeShowsTheStandingsOfItsInstant: after a freeze the public reads
// (page, around-me, ranks, member, search, ranges, totals, recent changes)
// agree with each other and with the board as it stood, ties and dense ranks
// included, while writes go on and admins read them; the unfreeze reveals.
func TestFreezeShowsTheStandingsOfItsInstant(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}, RankStyle: board.Dense})
	f.submit(b, "ann", 10, board.Set)
	f.submit(b, "bob", 10, board.Set)
	f.submit(b, "cat", 7, board.Set)
	f.submit(b, "dan", 5, board.Set)
	before, _ := f.publicAndLive(b, board.AllTime)
	v0 := b.Version

	fb, err := f.store.Freeze(f.ctx, b.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if fb.Version <= v0 || fb.FreezeAt.IsZero() {
		t.Fatalf("freeze did not bump the version or set the time: %d -> %d, %v", v0, fb.Version, fb.FreezeAt)
	}
	b = &fb
	f.submit(b, "dan", 20, board.Set) // to the top
	f.submit(b, "eve", 8, board.Set)  // new
	f.submit(b, "cat", 10, board.Set) // joins the tie
	b = f.fresh(b.ID)                 // the definition a writer's retry reads
	for _, k := range b.Periods {     // every period kind froze
		pub, live := f.publicAndLive(b, k)
		if !slices.Equal(pub, before) {
			t.Fatalf("%s: public sees %v, want the standings at the freeze %v", k, pub, before)
		}
		if want := []string{"1 dan 20", "2 ann 10", "2 bob 10", "2 cat 10", "3 eve 8"}; !slices.Equal(live, want) {
			t.Fatalf("%s: admins see %v, want %v", k, live, want)
		}
	}
	all := b.Current(board.AllTime, f.clock.Now())
	around, pos, err := f.store.Around(f.ctx, b, all, "cat", 1)
	if err != nil || pos != 2 || !slices.Equal(rows(around), []string{"1 bob 10", "2 cat 7", "3 dan 5"}) {
		t.Fatalf("public around cat: %v at %d, %v", rows(around), pos, err)
	}
	if _, _, err := f.store.Around(f.ctx, b, all, "eve", 1); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("eve joined after the freeze, yet the public finds her around: %v", err)
	}
	sts, err := f.store.Ranks(f.ctx, b, all, []string{"dan", "eve", "cat"})
	if err != nil || sts[0].Rank != 3 || sts[0].Score != 5 || sts[1].Ranked || sts[2].Rank != 2 || sts[0].Total != 4 {
		t.Fatalf("public ranks: %+v %v", sts, err)
	}
	mine, err := f.store.Member(LiveStandings(f.ctx), b, "dan")
	if err != nil || mine[0].Rank != 1 || mine[0].Score != 20 {
		t.Fatalf("admin's member read: %+v %v", mine, err)
	}
	found, _, err := f.store.Search(f.ctx, b, all, "e", 5)
	if err != nil || len(found) != 0 {
		t.Fatalf("public search finds a member who joined after the freeze: %+v %v", found, err)
	}
	found, _, _ = f.store.Search(f.ctx, b, all, "dan", 5)
	if len(found) != 1 || found[0].Score != 5 || found[0].Rank != 3 {
		t.Fatalf("public search of dan: %+v", found)
	}
	if n, err := f.store.CountRange(f.ctx, b, all, 10, 100); err != nil || n != 2 {
		t.Fatalf("public count of 10..100: %d %v, want 2", n, err)
	}
	if n, _ := f.store.Total(f.ctx, b, all); n != 4 {
		t.Fatalf("public total %d, want 4", n)
	}
	acts, err := f.store.Recent(f.ctx, b, 10)
	if err != nil || len(acts) != 4 || acts[0].Member != "dan" || acts[0].Value != 5 {
		t.Fatalf("public recent changes show changes after the freeze: %+v %v", acts, err)
	}
	if acts, _ := f.store.Recent(LiveStandings(f.ctx), b, 10); len(acts) != 7 {
		t.Fatalf("admins see %d recent changes, want 7", len(acts))
	}
	views := f.store.ReadViews(f.ctx, []ViewQuery{
		{Board: b, Period: all, Offset: 0, Limit: 20},
		{Board: b, Period: all, Offset: 0, Limit: 20, Live: true},
		{Board: b, Period: all, Member: "ann", Radius: 1},
	})
	if !slices.Equal(rows(views[0].Page), before) || len(views[1].Page.Entries) != 5 || views[2].Position != 0 {
		t.Fatalf("live hub's reads: public %v, admin %v, around ann at %d", rows(views[0].Page), rows(views[1].Page), views[2].Position)
	}
	snap, err := f.store.PublicSnapshot(f.ctx, b, all, time.Minute)
	if err != nil || snap.Total != 4 || snap.Frozen.IsZero() {
		t.Fatalf("export snapshot: %+v %v", snap, err)
	}
	_ = snap.Close(f.ctx)
	if _, err := f.store.Freeze(f.ctx, b.ID, time.Time{}); !errors.Is(err, board.ErrFrozen) {
		t.Fatalf("second freeze: %v, want ErrFrozen", err)
	}

	ub, err := f.store.Unfreeze(f.ctx, b.ID)
	if err != nil || !ub.FreezeAt.IsZero() || ub.Version <= b.Version {
		t.Fatalf("unfreeze: %+v %v", ub, err)
	}
	b = &ub
	pub, live := f.publicAndLive(b, board.AllTime)
	if !slices.Equal(pub, live) || len(pub) != 5 {
		t.Fatalf("after the reveal the public sees %v, admins %v", pub, live)
	}
	frozen := FrozenKey(b.ID, all)
	if ttl := f.rdb.PTTL(f.ctx, frozen).Val(); ttl <= 0 || ttl > freezeLinger {
		t.Fatalf("the lifted freeze's copy should linger briefly, then go: ttl %v", ttl)
	}
	if n := f.rdb.Exists(f.ctx, freezeKey(b.ID)).Val(); n != 0 {
		t.Fatal("the freeze marker outlived the unfreeze")
	}
	if _, err := f.store.Unfreeze(f.ctx, b.ID); !errors.Is(err, board.ErrNotFrozen) {
		t.Fatalf("unfreeze twice: %v, want ErrNotFrozen", err)
	}
}

// TestScheduledFreezeKeepsLaterWritesOut: a freeze set for later lets
// writes through until its time; the first write after it takes the copy
// before it writes, so it never shows; periods that start after the freeze
// show empty, the one that held it as it stood.
func TestScheduledFreezeKeepsLaterWritesOut(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}})
	f.submit(b, "ann", 10, board.Incr)
	at := time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC)
	if _, err := f.store.Freeze(f.ctx, b.ID, f.clock.Now().Add(-time.Hour)); !errors.Is(err, board.ErrInvalidInput) {
		t.Fatalf("a freeze an hour ago: %v, want ErrInvalidInput", err)
	}
	if _, err := f.store.Freeze(f.ctx, b.ID, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	fb, err := f.store.Freeze(f.ctx, b.ID, at) // a pending freeze moves
	if err != nil || !fb.FreezeAt.Equal(at) {
		t.Fatalf("reschedule: %v %v", fb.FreezeAt, err)
	}
	b = &fb
	f.submit(b, "bob", 5, board.Incr) // before the freeze: shows
	if pub, _ := f.publicAndLive(b, board.AllTime); len(pub) != 2 {
		t.Fatalf("before its time the freeze hides %v", pub)
	}
	if n := f.rdb.Exists(f.ctx, FrozenKey(b.ID, b.Current(board.AllTime, at))).Val(); n != 0 {
		t.Fatal("the copy was taken before its time")
	}
	f.clock.Set(at.Add(2 * time.Hour)) // the next day
	f.submit(b, "bob", 50, board.Incr) // the first write after the freeze
	f.submit(b, "cat", 1, board.Incr)
	if n := f.rdb.Exists(f.ctx, FrozenKey(b.ID, b.Current(board.AllTime, at))).Val(); n != 1 {
		t.Fatal("the write after the freeze did not take the copy")
	}
	if pub, live := f.publicAndLive(b, board.AllTime); !slices.Equal(pub, []string{"1 ann 10", "2 bob 5"}) || len(live) != 3 {
		t.Fatalf("all time: public %v, admins %v", pub, live)
	}
	if pub, live := f.publicAndLive(b, board.Daily); len(pub) != 0 || len(live) != 2 {
		t.Fatalf("the day after the freeze: public %v (want empty), admins %v", pub, live)
	}
	day, err := f.store.Page(f.ctx, b, b.Current(board.Daily, at), 0, 10)
	if err != nil || !slices.Equal(rows(day), []string{"1 ann 10", "2 bob 5"}) {
		t.Fatalf("the day that held the freeze: %v %v", rows(day), err)
	}
}

// TestFreezeTakenByReadsAndScheduler: with no write after the freeze time,
// the first public read or the scheduler takes the copy; removals and
// resets after it take it before they change anything.
func TestFreezeTakenByReadsAndScheduler(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}})
	f.submit(b, "ann", 10, board.Set)
	f.submit(b, "bob", 9, board.Set)
	// Another replica (its own store) removes bob: the copy is taken first.
	fb, other := f.pastScheduledFreeze(b)
	if _, err := other.RemoveMember(f.ctx, b.ID, "bob", nil, tester); err != nil {
		t.Fatal(err)
	}
	if pub, live := f.publicAndLive(&fb, board.AllTime); !slices.Equal(pub, []string{"1 ann 10", "2 bob 9"}) || len(live) != 1 {
		t.Fatalf("after a removal past the freeze: public %v, admins %v", pub, live)
	}

	// The scheduler takes a freeze nobody reads or writes.
	if _, err := f.store.Unfreeze(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	at := f.clock.Now().Add(time.Minute)
	if _, err := f.store.Freeze(f.ctx, b.ID, at); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(f.ctx)
	sched := NewStore(f.rdb, WithClock(f.clock.Now))
	done := make(chan struct{})
	go func() {
		defer close(done)
		sched.RunFreezes(ctx, time.Hour, func(err error) {
			if ctx.Err() == nil {
				t.Error(err)
			}
		}, nil)
	}()
	// No t.Error, and no call on the test's Redis client, after the test.
	defer func() { cancel(); <-done }()
	f.clock.Set(at.Add(time.Second)) // nobody writes or reads
	marker := freezeKey(b.ID)
	deadline := time.Now().Add(30 * time.Second) // a bound for a broken scheduler, not a timing
	for f.rdb.HExists(f.ctx, marker, "taken").Val() == false {
		if time.Now().After(deadline) {
			t.Fatal("the scheduler did not take the freeze")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFreezeTakenByOutsideWriters: FCALL podium_submit runs the submit
// script, so an outside writer's first write after the freeze takes it too.
func TestFreezeTakenByOutsideWriters(t *testing.T) {
	f := realFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime}})
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "set", "10"); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(100 * time.Millisecond)
	if _, err := f.store.Freeze(f.ctx, b.ID, at); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(at) + 10*time.Millisecond)
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "set", "99"); err != nil {
		t.Fatal(err)
	}
	if !f.rdb.HExists(f.ctx, freezeKey(b.ID), "taken").Val() {
		t.Fatal("FCALL after the freeze did not take it")
	}
	fb := f.fresh(b.ID)
	for _, k := range fb.Periods {
		pg, err := f.store.Page(f.ctx, fb, fb.Current(k, time.Now()), 0, 5)
		if err != nil || !slices.Equal(rows(pg), []string{"1 ann 10"}) {
			t.Fatalf("%s after an outside write past the freeze: %v %v", k, rows(pg), err)
		}
	}
}

// A frozen board (or one with a freeze set) refuses the definition changes
// its copy could not follow: periods, time zone, rank style, team mode.
func TestFrozenBoardKeepsItsShape(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime}})
	if _, err := f.store.Freeze(f.ctx, b.ID, f.clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	b = f.fresh(b.ID)
	for name, change := range map[string]func(*board.Board){
		"periods":    func(x *board.Board) { x.Periods = []board.Kind{board.Weekly, board.AllTime, board.Last7d} },
		"time_zone":  func(x *board.Board) { x.TimeZone = "Europe/Paris" },
		"rank_style": func(x *board.Board) { x.RankStyle = board.Dense },
		"teams":      func(x *board.Board) { x.Teams = board.TeamsSum },
	} {
		upd := *b
		change(&upd)
		_, err := f.store.UpdateBoard(f.ctx, upd)
		if fes := board.FieldErrors(err); len(fes) != 1 || fes[0].Field != name {
			t.Errorf("%s while frozen: %v", name, err)
		}
	}
	upd := *b
	upd.Title = "A new title"
	if _, err := f.store.UpdateBoard(f.ctx, upd); err != nil {
		t.Fatalf("a title while frozen: %v", err)
	}
}

// pastScheduledFreeze schedules b's freeze a minute ahead and moves the
// clock past it, with nobody having taken its copy yet: the freeze as it
// stands, and another replica's store (with its own view of what is taken).
func (f *fixture) pastScheduledFreeze(b *board.Board) (board.Board, *Store) {
	f.t.Helper()
	at := f.clock.Now().Add(time.Minute)
	fb, err := f.store.Freeze(f.ctx, b.ID, at)
	if err != nil {
		f.t.Fatal(err)
	}
	f.clock.Set(at.Add(time.Second))
	return fb, NewStore(f.rdb, WithClock(f.clock.Now))
}
