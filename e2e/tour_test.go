package e2e

// The tour: one app with a board in every period kind, closed periods in the
// archive, an admin, and the list of every page a person can reach, walked in
// legs, each in a browser tab of its own (a console leg's tab holds the
// admin's session), side by side. a11y_test.go checks each stop with
// axe-core, and for sideways scrolling at 390 px.

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"podium/archive"
	"podium/board"
	"podium/redisstore"
)

// stop is one page of the tour: where it is, the status it answers with,
// whether it needs a signed-in admin, and what to do on it before checking;
// then marks a stop that shows what the one before it did, so is walked
// right after it, in its tab.
type stop struct {
	name   string
	path   string
	status int
	admin  bool
	act    func(t *testing.T, page playwright.Page)
	then   bool
}

// stops is every public and admin page, in the order a context can walk
// them: public pages, the sign-in form, then the console once signed in.
func stops() []stop {
	return []stop{
		{name: "home", path: "/", status: 200},
		{name: "board, default period", path: "/b/every", status: 200},
		{name: "board, today", path: "/b/every?period=day", status: 200},
		{name: "board, this week", path: "/b/every?period=week", status: 200},
		{name: "board, this month", path: "/b/every?period=month", status: 200},
		{name: "board, this year", path: "/b/every?period=year", status: 200},
		{name: "board, all time", path: "/b/every?period=all", status: 200},
		{name: "board, a past week", path: "/b/every?period=week&at=2026-W53", status: 200},
		{name: "board, a search", path: "/b/every?period=week&q=a", status: 200},
		{name: "board, last 7 days", path: "/b/every?period=last7d", status: 200},
		{name: "board, a segment", path: "/b/every?period=week&segment=country:NO", status: 200},
		{name: "teams", path: "/b/quarterly-sales/teams", status: 200},
		{name: "a team", path: "/b/quarterly-sales/teams/North%20Region", status: 200},
		{name: "widget, teams", path: "/embed/quarterly-sales?teams=1", status: 200},
		{name: "league", path: "/b/ladder/leagues", status: 200},
		{name: "a league cohort", path: "/b/ladder/leagues/0/1", status: 200},
		{name: "member in a league", path: "/b/ladder/m/bob", status: 200},
		{name: "member", path: "/b/every/m/ann", status: 200},
		{name: "around me", path: "/b/every/around/ann?period=week", status: 200},
		{name: "compare members", path: "/b/every/among?period=week&members=ann,bob,nobody", status: 200},
		{name: "compare, empty", path: "/b/every/among", status: 200},
		{name: "among friends", path: "/b/every/m/ann/friends?period=week", status: 200},
		{name: "past winners", path: "/b/every/winners?period=week", status: 200},
		{name: "the race, this week", path: "/b/every/race?period=week", status: 200},
		{name: "the race, a time board", path: "/b/sprint-100m/race?period=all", status: 200},
		{name: "widget", path: "/embed/every", status: 200},
		{name: "widget, dark, around a member", path: "/embed/every?theme=dark&member=ann&limit=5", status: 200},
		{name: "widget, light", path: "/embed/every?theme=light", status: 200},
		{name: "wall display", path: "/tv?boards=every&periods=week,all", status: 200},
		{name: "board, frozen", path: "/b/cup", status: 200},
		{name: "widget, frozen", path: "/embed/cup", status: 200},
		{name: "wall display, a frozen contest", path: "/tv?boards=cup", status: 200},
		{name: "404", path: "/no-such-page", status: 404},
		{name: "404, no such board", path: "/b/no-such-board", status: 404},
		{name: "404, no such member", path: "/b/every/m/ghost", status: 404},
		{name: "admin sign-in", path: "/admin/login", status: 200},
		{name: "admin boards", path: "/admin", status: 200, admin: true},
		{name: "admin, new board", path: "/admin/boards/new", status: 200, admin: true},
		{name: "admin, edit board", path: "/admin/boards/every/edit", status: 200, admin: true},
		{name: "admin, manage scores", path: "/admin/boards/every", status: 200, admin: true},
		{name: "admin, manage a member's segment", path: "/admin/boards/every?member=ann", status: 200, admin: true},
		{name: "admin, manage a team board", path: "/admin/boards/quarterly-sales?member=ann", status: 200, admin: true},
		{name: "admin, a frozen board", path: "/admin/boards/cup", status: 200, admin: true},
		{name: "admin, delete board", path: "/admin/boards/every/delete", status: 200, admin: true},
		{name: "admin, sharing", path: "/admin/boards/every/sharing", status: 200, admin: true},
		{name: "admin, people", path: "/admin/boards/every/people", status: 200, admin: true},
		{name: "admin, erase a member", path: "/admin/boards/every/erase?member=ann", status: 200, admin: true},
		{name: "admin audit log", path: "/admin/audit", status: 200, admin: true},
		{name: "admin, a new API key", path: "/admin/keys", status: 200, admin: true, act: createKey},
		{name: "admin API keys", path: "/admin/keys", status: 200, admin: true, then: true},
		{name: "admin users", path: "/admin/users", status: 200, admin: true},
		{name: "admin sessions", path: "/admin/sessions", status: 200, admin: true},
		{name: "admin 404", path: "/admin/boards/no-such-board", status: 404, admin: true},
	}
}

// createKey makes an API key, so the page shows the new secret once and
// lists a key.
func createKey(t *testing.T, page playwright.Page) {
	t.Helper()
	must(t, page.Locator("#k-name").Fill("Scoreboard feed"))
	must(t, page.GetByTestId("create-key").Click())
	must(t, expect.Locator(page.GetByTestId("new-key")).ToBeVisible())
}

// tourApp is the app the tour visits: a board with every period kind, a
// sort field, display names, recent changes up and down, and closed periods
// archived (past winners, a member's chart).
func tourApp(t *testing.T) *app {
	t.Helper()
	db, err := archive.Open(context.Background(), filepath.Join(t.TempDir(), "archive.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	a := launch(t, db)
	b := a.board(board.Board{ID: "every", Title: "Every Period", Periods: board.Kinds, Schedule: "0 18 * * FRI", DefaultPeriod: board.Weekly,
		Fields: []board.Field{{Name: "clears", Desc: true}}, Segments: []string{"country"}})
	// Long words in narrow columns: the boards list once crossed its card on a phone.
	a.board(board.Board{ID: "sprint-100m", Title: "100 m Sprint", Format: board.Format{Type: board.Duration}, Order: board.LowerIsBetter,
		Periods: []board.Kind{board.Weekly, board.Yearly, board.AllTime}}, "ann", 10480, "bob", 9870)
	a.board(board.Board{ID: "quarterly-sales", Title: "Quarterly Sales", Format: board.Format{Type: board.Decimal, Decimals: 2, Prefix: "$"},
		Periods: []board.Kind{board.Monthly, board.Yearly}, Teams: board.TeamsSum}, "ann", 1250)
	if _, _, err := a.store.SetTeam(context.Background(), "quarterly-sales", "ann", "North Region", board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	countries := []string{"NO", "SE", "Côte d'Ivoire"}
	names := map[string]string{"ann": "Ann Archer", "bob": "Bob Bishop", "cy": "Cy", "dee": "Dee Dorsey-Lindqvist"}
	submit := func(s *redisstore.Store, member string, score float64, op board.Op) {
		sub := board.Submission{Member: member, Score: score, Op: op, Name: names[member], Fields: []int64{int64(score) % 7},
			Segments: map[string]string{"country": countries[len(member)%len(countries)]}}
		if _, err := s.Submit(context.Background(), b.ID, sub, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	// Last year's last week, closed and archived.
	past := redisstore.NewStore(a.redis(), redisstore.WithClock(func() time.Time { return time.Date(2026, 12, 31, 10, 0, 0, 0, time.UTC) }))
	for i, m := range []string{"ann", "bob", "cy", "dee", "eve"} {
		submit(past, m, float64(50-i*7), board.Set)
	}
	arch := &archive.Archiver{Store: a.store, DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if _, err := arch.Due(context.Background()); err != nil {
		t.Fatal(err)
	}
	// This week: sets, then increases and a decrease for "Recent changes".
	for i, m := range []string{"ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy", "jo", "kim", "lee"} {
		submit(a.store, m, float64(100-i*6), board.Set)
	}
	submit(a.store, "cy", 30, board.Incr)
	submit(a.store, "ann", 12, board.Decr)
	submit(a.store, "lee", 45, board.Incr)
	// A league: its tiers, a cohort, a member's league.
	a.board(board.Board{ID: "ladder", Title: "Ladder", Periods: []board.Kind{board.Weekly, board.AllTime},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: 2, Promote: 1, Relegate: 1}},
		"ann", 50, "bob", 40, "cy", 30)
	// A frozen contest: its notice and countdown (to the close, to the
	// reveal) on the public pages, the console's note.
	a.board(board.Board{ID: "cup", Title: "Winter Cup", ClosesAt: testNow.Add(3 * time.Hour)}, "ann", 30, "bob", 20)
	if _, err := a.store.Freeze(context.Background(), "cup", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.ScheduleReveal(context.Background(), "cup", testNow.Add(5*time.Hour)); err != nil {
		t.Fatal(err)
	}
	a.scores("cup", a.store, "cy", 40)
	return a
}
