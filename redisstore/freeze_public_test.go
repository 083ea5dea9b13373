package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"podium/board"
)

// Issue 24: a frozen board's public surfaces must not show that anything
// happened after the freeze: recent changes, display names, and who exists
// stay as they were at the freeze until the reveal.

// recentLines renders recent changes as "member name value" lines.
func recentLines(acts []board.Activity) []string {
	out := make([]string, len(acts))
	for i, a := range acts {
		out[i] = fmt.Sprintf("%s %s %v", a.Member, a.Name, a.Value)
	}
	return out
}

// named renders a page as "member name" lines.
func named(pg board.Page) []string {
	out := make([]string, len(pg.Entries))
	for i, e := range pg.Entries {
		out[i] = e.Member + " " + e.Name
	}
	return out
}

func (f *fixture) submitNamed(b *board.Board, member, name string, score float64) {
	f.t.Helper()
	if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: member, Name: name, Score: score, Op: board.Set}, tester); err != nil {
		f.t.Fatalf("submit %s: %v", member, err)
	}
}

func (f *fixture) publicRecent(b *board.Board, n int) []string {
	f.t.Helper()
	acts, err := f.store.Recent(f.ctx, b, n)
	if err != nil {
		f.t.Fatalf("public recent changes: %v", err)
	}
	return recentLines(acts)
}

// TestFrozenRecentChangesStayAsAtTheFreeze: the public's recent changes of
// a frozen board are the list as it stood at the freeze, whatever number
// of writes follow (it used to lose a line to each), for the board page and
// the live hub alike; admins see the live list, and the reveal shows it.
func TestFrozenRecentChangesStayAsAtTheFreeze(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}})
	for i := range 10 {
		f.submitNamed(b, fmt.Sprintf("m%d", i), fmt.Sprintf("M%d", i), float64(i))
	}
	fb, err := f.store.Freeze(f.ctx, b.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	b = &fb
	atFreeze := f.publicRecent(b, 8)
	if len(atFreeze) != 8 || atFreeze[0] != "m9 M9 9" {
		t.Fatalf("recent changes at the freeze: %v", atFreeze)
	}
	for i := range 5 {
		f.submitNamed(b, fmt.Sprintf("late%d", i), "", 100)
		if got := f.publicRecent(b, 8); !slices.Equal(got, atFreeze) {
			t.Fatalf("after %d writes past the freeze the public sees %v, want the list at the freeze %v", i+1, got, atFreeze)
		}
		hub := f.store.RecentOf(f.ctx, []*board.Board{b}, 8)[0] // the live hub's read
		if hub.Err != nil || !slices.Equal(recentLines(hub.Activities), atFreeze) {
			t.Fatalf("after %d writes past the freeze the live hub reads %v (%v)", i+1, recentLines(hub.Activities), hub.Err)
		}
	}
	if adm, _ := f.store.Recent(LiveStandings(f.ctx), b, 8); len(adm) != 8 || adm[0].Member != "late4" {
		t.Fatalf("admins see %v, want the live list", recentLines(adm))
	}
	ub, err := f.store.Unfreeze(f.ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.publicRecent(&ub, 8); len(got) != 8 || got[0] != "late4 late4 100" {
		t.Fatalf("after the reveal the public sees %v", got)
	}
}

// TestFrozenNamesAndMembersStayAsAtTheFreeze: a member who first scores
// after the freeze (with a name) does not exist for the public; a removal
// and renames after the freeze leave the public's names as they were, in
// every read (pages, around-me, the member's standings, search, ranks,
// recent changes, the live hub's views, exports). Admins read the live
// names; the reveal shows them; a later freeze starts from the names of its
// own instant.
func TestFrozenNamesAndMembersStayAsAtTheFreeze(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime}})
	f.submitNamed(b, "ann", "Ann", 10)
	f.submitNamed(b, "bob", "Bob", 9)
	f.submitNamed(b, "dave", "Dave", 8)
	fb, err := f.store.Freeze(f.ctx, b.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	b = &fb
	f.submitNamed(b, "zed", "Zed", 20) // first seen after the freeze
	if _, err := f.store.SetName(f.ctx, b.ID, "bob", "Robert", tester); err != nil {
		t.Fatal(err)
	}
	f.submitNamed(b, "ann", "Annie", 11) // a rename by a submission
	if _, err := f.store.RemoveMember(f.ctx, b.ID, "dave", nil, tester); err != nil {
		t.Fatal(err)
	}
	b = f.fresh(b.ID)
	f.checkPublicNames(b, "as at the freeze")

	all := b.Current(board.AllTime, f.clock.Now())
	adm, err := f.store.Page(LiveStandings(f.ctx), b, all, 0, 10)
	if err != nil || !slices.Equal(named(adm), []string{"zed Zed", "ann Annie", "bob Robert"}) {
		t.Fatalf("admins see %v (%v), want the live names", named(adm), err)
	}
	if sts, err := f.store.Member(LiveStandings(f.ctx), b, "zed"); err != nil || !sts[0].Ranked || sts[0].Name != "Zed" {
		t.Fatalf("admins' read of zed: %+v %v", sts, err)
	}

	ub, err := f.store.Unfreeze(f.ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	b = &ub
	live := []string{"zed Zed", "ann Annie", "bob Robert"}
	if pg, err := f.store.Page(f.ctx, b, all, 0, 10); err != nil || !slices.Equal(named(pg), live) {
		t.Fatalf("after the reveal the public sees %v (%v), want %v", named(pg), err, live)
	}
	if sts, err := f.store.Member(f.ctx, b, "zed"); err != nil || !sts[0].Ranked || sts[0].Name != "Zed" {
		t.Fatalf("after the reveal zed reads %+v %v", sts, err)
	}

	// A second freeze: the names saved during the first one are not its own.
	fb, err = f.store.Freeze(f.ctx, b.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	b = &fb
	if _, err := f.store.SetName(f.ctx, b.ID, "zed", "Zedd", tester); err != nil {
		t.Fatal(err)
	}
	if pg, err := f.store.Page(f.ctx, b, all, 0, 10); err != nil || !slices.Equal(named(pg), live) {
		t.Fatalf("a second freeze shows %v (%v), want the names of its own instant %v", named(pg), err, live)
	}
}

// checkPublicNames checks every public read of b (frozen after ann "Ann"
// 10, bob "Bob" 9 and dave "Dave" 8 wrote; since then zed "Zed" scored,
// bob became "Robert", ann "Annie", and dave was removed).
func (f *fixture) checkPublicNames(b *board.Board, when string) {
	f.t.Helper()
	t := f.t
	all := b.Current(board.AllTime, f.clock.Now())
	want := []string{"ann Ann", "bob Bob", "dave Dave"}
	if pg, err := f.store.Page(f.ctx, b, all, 0, 10); err != nil || !slices.Equal(named(pg), want) {
		t.Fatalf("%s: public page %v (%v), want %v", when, named(pg), err, want)
	}
	if pg, _, err := f.store.Around(f.ctx, b, all, "dave", 1); err != nil || !slices.Equal(named(pg), want) {
		t.Fatalf("%s: public around dave %v (%v)", when, named(pg), err)
	}
	for _, m := range []struct{ id, name string }{{"ann", "Ann"}, {"bob", "Bob"}, {"dave", "Dave"}} {
		sts, err := f.store.Member(f.ctx, b, m.id)
		if err != nil || !sts[0].Ranked || sts[0].Name != m.name {
			t.Fatalf("%s: public standings of %s %+v (%v), want ranked as %q", when, m.id, sts, err, m.name)
		}
	}
	// Who exists: zed, first seen after the freeze, has no score and no
	// name (the API and the member page answer 404 from that).
	sts, err := f.store.Member(f.ctx, b, "zed")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		if st.Ranked || st.Name != "zed" {
			t.Fatalf("%s: zed, who joined after the freeze, shows to the public: %+v", when, st)
		}
	}
	if rk, err := f.store.Ranks(f.ctx, b, all, []string{"zed", "bob"}); err != nil || rk[0].Name != "zed" || rk[1].Name != "Bob" {
		t.Fatalf("%s: public ranks %+v (%v)", when, rk, err)
	}
	for q, want := range map[string][]string{
		"bo": {"bob Bob"}, "rob": nil, "an": {"ann Ann"}, "annie": nil, "ze": nil, "da": {"dave Dave"},
	} {
		found, _, err := f.store.Search(f.ctx, b, all, q, 10)
		if got := named(board.Page{Entries: found}); err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: public search %q finds %v (%v), want %v", when, q, got, err, want)
		}
	}
	if got := f.publicRecent(b, 8); !slices.Equal(got, []string{"dave Dave 8", "bob Bob 9", "ann Ann 10"}) {
		t.Fatalf("%s: public recent changes %v", when, got)
	}
	views := f.store.ReadViews(f.ctx, []ViewQuery{
		{Board: b, Period: all, Offset: 0, Limit: 10},
		{Board: b, Period: all, Member: "dave", Radius: 1},
		{Board: b, Period: all, Member: "bob", Radius: 5, Live: true},
	})
	if !slices.Equal(named(views[0].Page), want) || !slices.Equal(named(views[1].Page), want) {
		t.Fatalf("%s: the live hub's public views %v, %v", when, named(views[0].Page), named(views[1].Page))
	}
	if got := named(views[2].Page); !slices.Equal(got, []string{"zed Zed", "ann Annie", "bob Robert"}) {
		t.Fatalf("%s: the live hub's admin view %v", when, got)
	}
	snap, err := f.store.PublicSnapshot(f.ctx, b, all, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = snap.Close(context.Background()) }()
	if pg, err := snap.Page(f.ctx, 0, 10); err != nil || !slices.Equal(named(pg), want) {
		t.Fatalf("%s: export %v (%v), want %v", when, named(pg), err, want)
	}
}

// TestFrozenNamesOfOutsideWriters: FCALL podium_submit with a name after
// the freeze neither names a member for the public nor makes one exist.
func TestFrozenNamesOfOutsideWriters(t *testing.T) {
	f := realFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}})
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "set", "10", "Ann"); err != nil {
		t.Fatal(err)
	}
	fb, err := f.store.Freeze(f.ctx, b.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	b = &fb
	if _, err := fcall(f.ctx, f.rdb, b, "yan", "set", "50", "Yan"); err != nil {
		t.Fatal(err)
	}
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "set", "12", "Annabel"); err != nil {
		t.Fatal(err)
	}
	sts, err := f.store.Member(f.ctx, b, "yan")
	if err != nil || sts[0].Ranked || sts[0].Name != "yan" {
		t.Fatalf("yan, first seen through FCALL after the freeze, shows to the public: %+v %v", sts, err)
	}
	pg, err := f.store.Page(f.ctx, b, b.Current(board.AllTime, time.Now()), 0, 10)
	if err != nil || !slices.Equal(named(pg), []string{"ann Ann"}) {
		t.Fatalf("public page after FCALL renames: %v %v", named(pg), err)
	}
	if found, _, _ := f.store.Search(f.ctx, b, b.Current(board.AllTime, time.Now()), "ya", 5); len(found) != 0 {
		t.Fatalf("public search finds yan: %+v", found)
	}
}

// TestRenameTakesADueFreeze: a rename made after a scheduled freeze's time,
// before anyone took its copy (another replica, nobody reading), takes it
// first, as writes do: the public keeps the name of the freeze's instant.
func TestRenameTakesADueFreeze(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}})
	f.submitNamed(b, "ann", "Ann", 10)
	fb, other := f.pastScheduledFreeze(b)
	if _, err := other.SetName(f.ctx, b.ID, "ann", "Queen Ann", tester); err != nil {
		t.Fatal(err)
	}
	if !f.rdb.HExists(f.ctx, freezeKey(b.ID), "taken").Val() {
		t.Fatal("the rename past the freeze did not take it")
	}
	pg, err := f.store.Page(f.ctx, &fb, fb.Current(board.AllTime, f.clock.Now()), 0, 10)
	if err != nil || !slices.Equal(named(pg), []string{"ann Ann"}) {
		t.Fatalf("a rename past a scheduled freeze shows: %v %v", named(pg), err)
	}
	if strings.Contains(strings.Join(f.publicRecent(&fb, 8), " "), "Queen") {
		t.Fatal("the recent changes show the name given after the freeze")
	}
}

// TestRemoveAndResetTakeADueFreeze: a removal or a reset made after a
// scheduled freeze's time, before anyone took its copy, takes it in its own
// script first (a check in Go before the script could let the freeze's time
// pass in between): the public still sees what stood at the freeze.
func TestRemoveAndResetTakeADueFreeze(t *testing.T) {
	t.Parallel()
	for _, change := range []string{"remove", "reset"} {
		t.Run(change, func(t *testing.T) {
			f := newFixture(t)
			b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime}})
			f.submitNamed(b, "ann", "Ann", 10)
			fb, other := f.pastScheduledFreeze(b)
			var err error
			if change == "remove" {
				_, err = other.RemoveMember(f.ctx, b.ID, "ann", nil, tester)
			} else {
				_, err = other.ResetPeriod(f.ctx, b.ID, fb.Current(board.AllTime, f.clock.Now()), tester)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !f.rdb.HExists(f.ctx, freezeKey(b.ID), "taken").Val() {
				t.Fatalf("the %s past the freeze did not take it", change)
			}
			pg, err := f.store.Page(f.ctx, &fb, fb.Current(board.AllTime, f.clock.Now()), 0, 10)
			if err != nil || !slices.Equal(named(pg), []string{"ann Ann"}) {
				t.Fatalf("a %s past a scheduled freeze shows: %v %v", change, named(pg), err)
			}
		})
	}
}

// TestFrozenSearchHidesHowManyNamesChanged: on a frozen board, the names
// given after the freeze are passed over by the public's search without
// counting toward its budget, so whether a search comes back complete says
// nothing of how many there were.
func TestFrozenSearchHidesHowManyNamesChanged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime}})
	for i := range 5 {
		f.submitNamed(b, fmt.Sprintf("p%d", i), fmt.Sprintf("Pat %d", i), float64(i))
	}
	fb, err := f.store.Freeze(f.ctx, b.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	subs := make([]board.Submission, 0, board.MaxBatch)
	for i := range searchBudget + 10 { // more newcomers than a search examines
		subs = append(subs, board.Submission{Member: fmt.Sprintf("new%d", i), Name: fmt.Sprintf("Pat new %d", i), Score: 1, Op: board.Set})
		if len(subs) == board.MaxBatch || i == searchBudget+9 {
			if _, err := f.store.SubmitBatch(f.ctx, b.ID, subs, board.BatchOptions{By: tester, NoRanks: true}); err != nil {
				t.Fatal(err)
			}
			subs = subs[:0]
		}
	}
	es, complete, err := f.store.Search(f.ctx, &fb, fb.Current(board.AllTime, f.clock.Now()), "pat", 50)
	if err != nil || !complete || len(es) != 5 {
		t.Fatalf("public search of a frozen board: %d entries, complete %v, %v", len(es), complete, err)
	}
}
