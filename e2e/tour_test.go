package e2e

// The tour: one app with a board in every period kind, closed periods in the
// archive, an admin, and the list of every page a person can reach, walked in
// legs, each in a browser tab of its own (a console leg's tab holds the
// admin's session), side by side. a11y_test.go checks each stop with
// axe-core, and for sideways scrolling at 390 px.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
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

// variant is one viewport and colour scheme.
type variant struct {
	width int
	dark  bool
}

func (v variant) String() string {
	if v.dark {
		return fmt.Sprintf("%dpx-dark", v.width)
	}
	return fmt.Sprintf("%dpx-light", v.width)
}

// tourPage opens a tab in its own context at the variant's size and
// preferred colour scheme, motion reduced so no animation is caught
// half-way, with initScript (axe-core) in every document when given.
func tourPage(t *testing.T, v variant, initScript string) playwright.Page {
	t.Helper()
	scheme := playwright.ColorSchemeLight
	if v.dark {
		scheme = playwright.ColorSchemeDark
	}
	ctx, err := browser.NewContext(playwright.BrowserNewContextOptions{
		Viewport:      &playwright.Size{Width: v.width, Height: 844},
		ColorScheme:   scheme,
		ReducedMotion: playwright.ReducedMotionReduce,
	})
	if err != nil {
		t.Fatal(err)
	}
	generous(ctx)
	t.Cleanup(func() { ctx.Close() })
	if initScript != "" {
		must(t, ctx.AddInitScript(playwright.Script{Content: &initScript}))
	}
	page, err := ctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// leg is a part of the tour that one tab walks.
type leg struct {
	name  string
	stops []stop
}

// legStops is how many stops a leg has at most: the tour's legs run side by
// side, and short ones keep the slowest from holding up the package.
const legStops = 7

// legs splits the tour into parts that can be walked at the same time, each
// page still visited once: public pages, then console pages (a console
// leg's tab holds the admin's session), legStops at most in each, a "then"
// stop kept with the one before it.
func legs() []leg {
	var out []leg
	for _, s := range stops() {
		kind := "public"
		if s.admin {
			kind = "console"
		}
		last := len(out) - 1
		if last < 0 || out[last].stops[0].admin != s.admin || (len(out[last].stops) >= legStops && !s.then) {
			out = append(out, leg{name: fmt.Sprintf("%s-%d", kind, len(out)+1)})
			last++
		}
		out[last].stops = append(out[last].stops, s)
	}
	return out
}

// walk runs each leg of the tour of a in a parallel subtest with a tab of
// its own from newTab, and returns when every leg is done. The admin signs
// in once, before the legs start, and each console leg's tab is given that
// session's cookies: the app takes one sign-in at a time per account and
// address (access.Limiter.LoginStart) and answers another sent meanwhile with
// 429, so console legs that each signed in at once were turned away now and
// then, and their wait for the console ran out after a minute.
func walk(t *testing.T, a *app, newTab func(t *testing.T) playwright.Page, check func(t *testing.T, page playwright.Page, s stop)) {
	t.Helper()
	session := adminSession(t, a)
	t.Run("tour", func(t *testing.T) {
		for _, l := range legs() {
			t.Run(l.name, func(t *testing.T) {
				t.Parallel()
				page := newTab(t)
				if l.stops[0].admin {
					must(t, page.Context().AddCookies(session))
				}
				tour(t, page, a, l.stops, func(s stop) { check(t, page, s) })
			})
		}
	})
}

// adminSession signs the admin in through the form in a tab of its own and
// returns the tab's cookies: the session, for console legs to share.
func adminSession(t *testing.T, a *app) []playwright.OptionalCookie {
	t.Helper()
	page := newPage(t)
	signIn(t, page, a, adminPassword)
	signedIn(t, page, a)
	cookies, err := page.Context().Cookies(a.URL)
	must(t, err)
	out := make([]playwright.OptionalCookie, len(cookies))
	for i, c := range cookies {
		out[i] = c.ToOptionalCookie()
	}
	return out
}

// signedIn waits for a sign-in sent by signIn to reach the console, and
// says what the sign-in form answered when it does not.
func signedIn(t *testing.T, page playwright.Page, a *app) {
	t.Helper()
	if err := page.WaitForURL(a.URL + "/admin"); err != nil {
		answer, _ := page.Locator("main").InnerText(playwright.LocatorInnerTextOptions{Timeout: playwright.Float(1000)})
		t.Fatalf("signing in: the console did not open; the tab is at %s, saying %q: %v", page.URL(), strings.Join(strings.Fields(answer), " "), err)
	}
}

// tour visits each stop in page, which holds the admin's session when
// there are admin stops, and calls check on each once it has settled. If a
// step stops the test, the log names the stop and the step.
func tour(t *testing.T, page playwright.Page, a *app, these []stop, check func(s stop)) {
	t.Helper()
	var at stop
	step, walked := "", false
	defer func() {
		if !walked { // t.Fatal, or a panic, ended the walk here
			t.Logf("the tour stopped at %q (%s) while %s", at.name, at.path, step)
		}
	}()
	for _, s := range these {
		at = s
		step = "opening it"
		open(t, page, a.URL+s.path, s.status)
		if s.act != nil {
			step = "acting on it"
			s.act(t, page)
		}
		step = "waiting for it to settle"
		settle(t, page)
		step = "checking it"
		check(s)
	}
	walked = true
}

// settle waits for a live page's socket to say how it is (the indicator is
// hidden until then) and for the frames after it to be painted.
func settle(t *testing.T, page playwright.Page) {
	t.Helper()
	if n, err := page.Locator("[data-live-status]").Count(); err == nil && n > 0 {
		if _, err := page.WaitForFunction(`() => [...document.querySelectorAll("[data-live-status]")].every(e => !e.hidden)`, nil,
			playwright.PageWaitForFunctionOptions{Timeout: playwright.Float(5000)}); err != nil {
			t.Logf("%s: the live indicator did not appear: %v", page.URL(), err)
		}
	}
	_, err := page.Evaluate(`() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
	must(t, err)
}

// show sets the page's viewport and preferred colour scheme, without a reload.
func show(t *testing.T, page playwright.Page, v variant) {
	t.Helper()
	scheme := playwright.ColorSchemeLight
	if v.dark {
		scheme = playwright.ColorSchemeDark
	}
	must(t, page.SetViewportSize(v.width, 844))
	must(t, page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: scheme}))
	settle(t, page)
}

// snap saves the page at a failed stop as e2e/screenshots/<test>-<what>.png.
func snap(t *testing.T, page playwright.Page, what string) {
	t.Helper()
	dir, _ := filepath.Abs("screenshots")
	_ = os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, unsafeName.ReplaceAllString(t.Name()+"-"+what, "_")+".png")
	if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(path), FullPage: playwright.Bool(true)}); err == nil {
		t.Logf("screenshot: %s", path)
	}
}

// width is how wide a page's document is against its viewport, and, when
// wider, the element that reaches furthest right without a scrolling or
// clipping box around it.
type width struct {
	Scroll   int    `json:"scroll"`
	Viewport int    `json:"viewport"`
	Widest   string `json:"widest"`
	Right    int    `json:"right"`
}

func measureWidth(t *testing.T, page playwright.Page) width {
	t.Helper()
	out, err := page.Evaluate(`() => {
		const root = document.documentElement;
		const w = { scroll: root.scrollWidth, viewport: root.clientWidth, widest: "", right: 0 };
		if (w.scroll <= w.viewport) return JSON.stringify(w);
		const contained = el => {
			for (let p = el.parentElement; p && p !== document.body; p = p.parentElement)
				if (getComputedStyle(p).overflowX !== "visible") return true;
			return false;
		};
		let widest = null, right = w.viewport;
		for (const el of document.body.querySelectorAll("*")) {
			const r = el.getBoundingClientRect().right;
			if (r > right + 0.5 && !contained(el)) { widest = el; right = r; }
		}
		if (widest) {
			const id = widest.id ? "#" + widest.id : "";
			const cls = typeof widest.className === "string" && widest.className.trim() ? "." + widest.className.trim().split(/\s+/).join(".") : "";
			const tid = widest.dataset && widest.dataset.testid ? "[data-testid=" + widest.dataset.testid + "]" : "";
			const text = (widest.textContent || "").trim().replace(/\s+/g, " ").slice(0, 60);
			w.widest = widest.tagName.toLowerCase() + id + cls + tid + (text ? " “" + text + "”" : "");
			w.right = Math.ceil(right);
		}
		return JSON.stringify(w);
	}`)
	must(t, err)
	var w width
	if err := json.Unmarshal([]byte(fmt.Sprint(out)), &w); err != nil {
		t.Fatal(err)
	}
	return w
}
