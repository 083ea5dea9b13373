package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	podium "podium/app"
	"podium/archive"
	"podium/board"
	"podium/redisstore"
)

// movingClock is a store clock the test moves forward: the instant it was
// set to, a microsecond later at each reading, so writes keep their order.
type movingClock struct{ at, ticks atomic.Int64 }

func (c *movingClock) now() time.Time { return time.UnixMicro(c.at.Load() + c.ticks.Add(1)).UTC() }

func (c *movingClock) set(t time.Time) {
	c.ticks.Store(0)
	c.at.Store(t.UnixMicro())
}

// launchRunning is launch with every background loop the binary runs
// (app.Run: the live hub, scheduled freezes and reveals, the archiver,
// webhooks) on the store clock now; the archiver looks for work every
// 100 ms and lets archived keys go at once, so what the clock makes due
// happens within moments.
func launchRunning(t *testing.T, db *archive.DB, now func() time.Time) (*app, *podium.App) {
	t.Helper()
	n := <-freeDBs
	t.Cleanup(func() { freeDBs <- n })
	rdb := redisSrv.ClientDB(t, n)
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	p := buildApp(t, rdb, db, now, func(c *podium.Config) { c.Drain, c.Shutdown = 0, 5*time.Second })
	if p.Archiver != nil { // none without db
		p.Archiver.Interval, p.Archiver.Linger = 100*time.Millisecond, 10*time.Millisecond
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, ln, io.Discard) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("the app stopped: %v", err)
		}
	})
	return &app{URL: "http://" + ln.Addr().String(), store: p.Store, t: t, db: n}, p
}

// apiCall sends a JSON request with an API key and reads the answer.
func apiCall(t *testing.T, method, url, key, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// TestContestRunsItself (issue 29): a contest set up once (its window, a
// freeze and a reveal at set times) runs with nobody at the keyboard while
// only the clock moves and players write: refused before the opening, open
// and written to, frozen (later scores hidden from the public), closed
// (refused), revealed by itself live, and archived, browsable from the
// archive afterwards. The board page, the widget and the wall display count
// down to each bound and switch as it passes, without a reload; a search's
// results, which have no live updates, reload themselves at the reveal.
func TestContestRunsItself(t *testing.T) {
	t.Parallel()
	day := func(h, m int) time.Time { return time.Date(2027, 1, 6, h, m, 0, 0, time.UTC) }
	clock := &movingClock{}
	clock.set(day(10, 0))
	db, err := archive.Open(context.Background(), filepath.Join(t.TempDir(), "archive.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	a, p := launchRunning(t, db, clock.now)
	_, key, err := p.Admin.Keys.Create(context.Background(), "contest", "", false)
	if err != nil {
		t.Fatal(err)
	}

	// Set up once: open 12:00 to 16:00, frozen from 15:00, revealed at 17:00.
	if st, out := apiCall(t, "POST", a.URL+"/api/v1/boards", key, `{"id":"ctf","title":"CTF Finals","periods":["day"],"default_period":"day",
		"retention":0,"opens_at":"2027-01-06T12:00:00Z","closes_at":"2027-01-06T16:00:00Z"}`); st != 201 {
		t.Fatalf("create: %d %v", st, out)
	}
	if st, out := apiCall(t, "PUT", a.URL+"/api/v1/boards/ctf/freeze", key, `{"at":"2027-01-06T15:00:00Z","reveal_at":"2027-01-06T17:00:00Z"}`); st != 200 {
		t.Fatalf("freeze: %d %v", st, out)
	}
	add := func(member string, value int) (int, map[string]any) {
		t.Helper()
		return apiCall(t, "POST", a.URL+"/api/v1/boards/ctf/scores", key, fmt.Sprintf(`{"member":%q,"score":%d}`, member, value))
	}
	refused := func(when, member string, value int) {
		t.Helper()
		if st, out := add(member, value); st != 409 || out["error"] == nil || !strings.Contains(toJSON(out), `"contest_closed"`) {
			t.Fatalf("a score %s: %d %v", when, st, out)
		}
	}

	// The browser's clock moves with the server's.
	ctx, err := browser.NewContext(playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 900}})
	if err != nil {
		t.Fatal(err)
	}
	generous(ctx)
	t.Cleanup(func() { ctx.Close() })
	must(t, ctx.Clock().Install(playwright.ClockInstallOptions{Time: day(10, 0)}))
	started := time.Now()
	move := func(to time.Time) {
		t.Helper()
		t.Logf("%v: move to %v", time.Since(started), to)
		clock.set(to)
		must(t, ctx.Clock().SetSystemTime(to))
	}
	pages := map[string]playwright.Page{}
	for _, path := range []string{"/b/ctf", "/embed/ctf", "/tv?boards=ctf"} {
		pg, err := ctx.NewPage()
		if err != nil {
			t.Fatal(err)
		}
		saveOnFailure(t, pg, path)
		open(t, pg, a.URL+path, 200)
		pages[path] = pg
	}
	bp := pages["/b/ctf"]
	countdown := func(words, at string) {
		t.Helper()
		for path, pg := range pages {
			line := pg.Locator("[data-testid=countdown-main]")
			if err := expect.Locator(line.Locator("[data-countdown-words]")).ToHaveText(regexp.MustCompile("^" + words + "$")); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			must(t, expect.Locator(line.Locator("time")).ToHaveAttribute("datetime", at))
		}
	}
	reveal := func(words string) {
		t.Helper()
		for path, pg := range pages {
			line := pg.Locator("[data-testid=countdown-reveal]")
			var err error
			if words == "" {
				err = expect.Locator(line).ToBeHidden()
			} else {
				err = expect.Locator(line.Locator("[data-countdown-words]")).ToHaveText(regexp.MustCompile("^" + words + "$"))
			}
			if err != nil {
				t.Fatalf("%s, the reveal's line: %v", path, err)
			}
		}
	}
	standings := func(pg playwright.Page, names, scores []string) {
		t.Helper()
		must(t, expect.Locator(pg.GetByTestId("name")).ToHaveText(names))
		must(t, expect.Locator(pg.GetByTestId("score")).ToHaveText(scores))
	}

	// 10:00: not open yet.
	countdown("Opens in (2 h|1 h 59 min)", "2027-01-06T12:00:00Z")
	must(t, expect.Locator(bp.Locator("[data-testid=countdown-main] time")).ToHaveText("6 Jan 2027, 12:00 UTC"))
	reveal("")
	refused("before the opening", "ann", 10)

	// 12:30: open, counting down to the close; scores show live.
	move(day(12, 30))
	countdown("Closes in (3 h 30 min|3 h 29 min)", "2027-01-06T16:00:00Z")
	for _, s := range []struct {
		m string
		v int
	}{{"ann", 10}, {"bob", 7}} {
		if st, out := add(s.m, s.v); st != 200 {
			t.Fatalf("a score while open: %d %v", st, out)
		}
	}
	standings(bp, []string{"ann", "bob"}, []string{"10", "7"})

	// 15:10: frozen at 15:00 by itself; a later score counts but stays
	// hidden, and the reveal's time shows.
	move(day(15, 10))
	must(t, expect.Locator(bp.GetByTestId("frozen")).ToContainText("Frozen since 6 Jan 2027, 15:00 UTC"))
	reveal("Results revealed in (1 h 50 min|1 h 49 min)")
	if st, out := add("bob", 20); st != 200 {
		t.Fatalf("a score while frozen: %d %v", st, out)
	}
	countdown("Closes in (50 min|49 min \\d+ s)", "2027-01-06T16:00:00Z")
	reloaded, err := ctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	open(t, reloaded, a.URL+"/b/ctf", 200)
	standings(reloaded, []string{"ann", "bob"}, []string{"10", "7"})
	must(t, reloaded.Close())
	standings(pages["/embed/ctf"], []string{"ann", "bob"}, []string{"10", "7"})
	// A search's results have no live updates: that page reloads itself
	// once the reveal's time has passed.
	search, err := ctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	saveOnFailure(t, search, "search")
	open(t, search, a.URL+"/b/ctf?q=bo", 200)
	standings(search, []string{"bob"}, []string{"7"})
	must(t, expect.Locator(search.GetByTestId("countdown-reveal")).ToBeVisible())

	// 16:30: closed; scores are refused.
	move(day(16, 30))
	countdown("Closed at", "2027-01-06T16:00:00Z")
	must(t, expect.Locator(bp.Locator("[data-testid=countdown-main]")).ToHaveText("◷ Closed at 6 Jan 2027, 16:00 UTC", playwright.LocatorAssertionsToHaveTextOptions{UseInnerText: playwright.Bool(true)}))
	reveal("Results revealed in (30 min|29 min \\d+ s)")
	refused("after the close", "cy", 50)

	// 17:05: revealed at 17:00 by itself: the final standings arrive live
	// on every open page, and the reveal's line goes with the freeze.
	move(day(17, 5))
	for path, pg := range pages {
		if err := expect.Locator(pg.GetByTestId("name")).ToHaveText([]string{"bob", "ann"}); err != nil {
			t.Fatalf("%s after the reveal: %v", path, err)
		}
		must(t, expect.Locator(pg.GetByTestId("frozen")).ToBeHidden())
	}
	standings(bp, []string{"bob", "ann"}, []string{"27", "10"})
	reveal("")
	standings(search, []string{"bob"}, []string{"27"})
	must(t, expect.Locator(search.GetByTestId("countdown-reveal")).ToBeHidden())
	countdown("Closed at", "2027-01-06T16:00:00Z")

	// The next day, past the archive's grace: the contest's day is archived
	// and its keys go from Redis by themselves; it reads from the archive.
	move(time.Date(2027, 1, 7, 1, 30, 0, 0, time.UTC))
	dayKey := redisstore.ZSetKey("ctf", mustPeriod(t, "2027-01-06"))
	rdb := a.redis()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if n, err := rdb.Exists(context.Background(), dayKey).Result(); err == nil && n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not archived and let go", dayKey)
		}
	}
	open(t, bp, a.URL+"/b/ctf?period=day&at=2027-01-06", 200)
	standings(bp, []string{"bob", "ann"}, []string{"27", "10"})
	must(t, expect.Locator(bp.Locator("[data-testid=countdown-main]")).ToHaveText("◷ Closed at 6 Jan 2027, 16:00 UTC", playwright.LocatorAssertionsToHaveTextOptions{UseInnerText: playwright.Bool(true)}))
}

func mustPeriod(t *testing.T, key string) board.Period {
	t.Helper()
	p, err := board.ParsePeriod(board.Daily, key, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// saveOnFailure saves pg's last state as e2e/screenshots/<test>_<name>.png
// if the test fails (newPage does this for the pages it opens).
func saveOnFailure(t *testing.T, pg playwright.Page, name string) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		dir, _ := filepath.Abs("screenshots")
		_ = os.MkdirAll(dir, 0o755)
		path := filepath.Join(dir, unsafeName.ReplaceAllString(t.Name()+"_"+name, "_")+".png")
		if _, err := pg.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(path), FullPage: playwright.Bool(true)}); err == nil {
			t.Logf("screenshot: %s", path)
		}
	})
}

// TestCountdownFollowsTheBoard: an open page's countdown follows the board
// live: a window set after the page was made shows, a freeze with a reveal
// to come shows its line, and when the browser's clock passes the reveal
// before the server has lifted the freeze, the line says the reveal is
// under way (the standings still frozen) until the live frame lifts it,
// then says so once to screen readers.
func TestCountdownFollowsTheBoard(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2027, 1, 6, 10, 0, 0, 0, time.UTC)
	clock := &movingClock{}
	clock.set(t0)
	a, _ := launchRunning(t, nil, clock.now)
	b := a.board(board.Board{ID: "quiz", Title: "Quiz", Periods: []board.Kind{board.AllTime}}, "ann", 10, "bob", 7)
	ctx, err := browser.NewContext(playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 900}})
	if err != nil {
		t.Fatal(err)
	}
	generous(ctx)
	t.Cleanup(func() { ctx.Close() })
	must(t, ctx.Clock().Install(playwright.ClockInstallOptions{Time: t0}))
	page, err := ctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	saveOnFailure(t, page, "board")
	open(t, page, a.URL+"/b/quiz", 200)
	main, reveal := page.GetByTestId("countdown-main"), page.GetByTestId("countdown-reveal")
	must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
	must(t, expect.Locator(main).ToBeHidden())

	// A close set now shows on the open page.
	b.ClosesAt = t0.Add(2 * time.Hour)
	if *b, err = a.store.UpdateBoard(context.Background(), *b); err != nil {
		t.Fatal(err)
	}
	must(t, expect.Locator(main.Locator("[data-countdown-words]")).ToHaveText(regexp.MustCompile(`^Closes in (2 h|1 h 59 min)$`)))
	must(t, expect.Locator(main.Locator("time")).ToHaveAttribute("datetime", "2027-01-06T12:00:00Z"))
	must(t, expect.Locator(main.Locator("time")).ToHaveText("6 Jan 2027, 12:00 UTC"))

	// Frozen, revealed at 11:00.
	if _, err := a.store.Freeze(context.Background(), "quiz", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.ScheduleReveal(context.Background(), "quiz", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	must(t, expect.Locator(reveal.Locator("[data-countdown-words]")).ToHaveText(regexp.MustCompile(`^Results revealed in (1 h|59 min \d+ s)$`)))
	must(t, expect.Locator(reveal.Locator("time")).ToHaveText("6 Jan 2027, 11:00 UTC"))
	a.scores("quiz", a.store, "bob", 30)

	// The browser's clock is past the reveal, the server's not yet.
	must(t, ctx.Clock().SetSystemTime(t0.Add(61*time.Minute)))
	must(t, expect.Locator(reveal.Locator("[data-countdown-words]")).ToHaveText("Revealing the results…"))
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"ann", "bob"}))

	// The server's too: the freeze lifts, and the line with it.
	clock.set(t0.Add(61 * time.Minute))
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"bob", "ann"}))
	must(t, expect.Locator(reveal).ToBeHidden())
	must(t, expect.Locator(page.Locator("[data-countdown-announce]")).ToHaveText("The results are revealed."))
	must(t, expect.Locator(main.Locator("[data-countdown-words]")).ToHaveText(regexp.MustCompile(`^Closes in (59 min|58 min \d+ s)$`)))
}
