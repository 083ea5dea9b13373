// Package e2e drives a real Chromium against the real server and a private
// redis-server, asserting on what a person sees. `make test` stages the
// playwright driver from npm and Chromium from Debian (scripts/playwright-setup.sh);
// a failing test leaves a screenshot in e2e/screenshots/.
package e2e

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	podium "podium/app"
	"podium/archive"
	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
)

var (
	redisSrv *redistest.Server
	driver   string // the playwright driver folder (axe-core is staged in it too)
	pw       *playwright.Playwright
	browser  playwright.Browser
	expect   = playwright.NewPlaywrightAssertions(20_000) // ms: a deadline, generous for a loaded machine
)

// redisDBs is how many logical databases the package's Redis has: one for
// each test that runs at a time (at most -parallel), and more.
const redisDBs = 64

// freeDBs holds the numbers of the logical databases no test is using.
var freeDBs = make(chan int, redisDBs)

// testNow is the app's clock in browser tests: Wednesday of ISO week 2027-W01,
// so the previous week is 2026-W53, across the year boundary.
var testNow = time.Date(2027, 1, 6, 12, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	flag.Parse()
	// A browser test spends most of its time waiting for the browser, the
	// server and the page's timers: alone, one keeps about a third of a core
	// busy. Unless -parallel says otherwise, twice GOMAXPROCS run at a time.
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	var err error
	// One server, a logical database per test: the tests run in parallel
	// and never see each other's boards, keys or keyspace notifications.
	if redisSrv, err = redistest.StartWith("--databases", strconv.Itoa(redisDBs)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer redisSrv.Close()
	for n := range redisDBs {
		freeDBs <- n
	}
	driver, err = driverDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	pw, err = playwright.Run(&playwright.RunOptions{DriverDirectory: driver, SkipInstallBrowsers: true, Verbose: false, Stdout: io.Discard})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: start playwright (driver %s): %v\nRun scripts/playwright-setup.sh, or `make test` which does.\n", driver, err)
		return 1
	}
	defer pw.Stop()
	browser, err = pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(chromiumPath()),
		Headless:       playwright.Bool(true),
		Args: []string{"--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
			"--disable-sync", "--no-first-run", "--disable-quic"},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: launch Chromium at %s: %v\nInstall it (apt-get install -y chromium) or set CHROMIUM.\n", chromiumPath(), err)
		return 1
	}
	defer browser.Close()
	return m.Run()
}

// driverDir is PLAYWRIGHT_DRIVER_PATH, or what the setup script stages.
func driverDir() (string, error) {
	if d := os.Getenv("PLAYWRIGHT_DRIVER_PATH"); d != "" {
		return d, nil
	}
	out, err := exec.Command("../scripts/playwright-setup.sh").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("scripts/playwright-setup.sh: %v: %s", err, ee.Stderr)
		}
		return "", fmt.Errorf("scripts/playwright-setup.sh: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], nil
}

func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return "/usr/bin/chromium"
}

// The admin account every test app has.
const (
	adminUser     = "alice"
	adminPassword = "correct horse battery"
)

// app is the real server over a logical database of the private Redis that
// is the test's alone while it runs.
type app struct {
	URL   string
	store *redisstore.Store
	t     *testing.T
	db    int // the app's logical database; -1 on a Cluster or Sentinel
}

func startApp(t *testing.T, origins ...string) *app {
	t.Helper()
	return launch(t, nil, origins...)
}

// launch starts the app; with db, closed periods are archived to db and
// read from it once expired, exports and histories come from it.
func launch(t *testing.T, db *archive.DB, origins ...string) *app {
	t.Helper()
	n := <-freeDBs
	t.Cleanup(func() { freeDBs <- n }) // after the app and its clients are closed
	rdb := redisSrv.ClientDB(t, n)
	if err := rdb.FlushDB(context.Background()).Err(); err != nil { // what the last test on it left
		t.Fatal(err)
	}
	a := launchOn(t, rdb, db, origins...)
	a.db = n
	return a
}

// redis is a new client of the app's database: an outside writer (a game
// server, another replica) or a store with another clock.
func (a *app) redis() *redis.Client {
	a.t.Helper()
	if a.db < 0 {
		a.t.Fatal("e2e: the app is not on the package's Redis")
	}
	return redisSrv.ClientDB(a.t, a.db)
}

// launchOn starts the app on any Redis (one node, a Cluster, a Sentinel),
// built by app.New as the binary builds it, and runs its live hub.
func launchOn(t *testing.T, rdb redis.UniversalClient, db *archive.DB, origins ...string) *app {
	t.Helper()
	return launchConfigured(t, rdb, db, nil, origins...)
}

// launchConfigured is launchOn with a change to the configuration (nil:
// none) before the app is built.
func launchConfigured(t *testing.T, rdb redis.UniversalClient, db *archive.DB, configure func(*podium.Config), origins ...string) *app {
	t.Helper()
	var ticks atomic.Int64 // each reading a millisecond later, so ties have an order
	p := buildApp(t, rdb, db, func() time.Time { return testNow.Add(time.Duration(ticks.Add(1)) * time.Millisecond) }, configure, origins...)
	store := p.Store
	hubCtx, stopHub := context.WithCancel(context.Background())
	hubDone := make(chan struct{})
	go func() { defer close(hubDone); p.Hub.Run(hubCtx) }()
	srv := httptest.NewUnstartedServer(p.Server)
	srv.Start()
	t.Cleanup(func() { stopHub(); <-hubDone; srv.CloseClientConnections(); srv.Close() })
	return &app{URL: srv.URL, store: store, t: t, db: -1}
}

// buildApp builds the app as the binary does, on rdb and the store clock
// now, with the test's admin account; db as launch says.
func buildApp(t *testing.T, rdb redis.UniversalClient, db *archive.DB, now func() time.Time, configure func(*podium.Config), origins ...string) *podium.App {
	t.Helper()
	cfg, err := podium.ParseConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// Say which Redis is in use, so that the app does not take it for the
	// embedded store (whose hub waits for messages the store publishes).
	switch c := rdb.(type) {
	case *redis.Client:
		cfg.RedisURL = "redis://" + c.Options().Addr
	case *redis.ClusterClient:
		cfg.Redis.ClusterAddrs = c.Options().Addrs
	}
	cfg.EmbedOrigins, cfg.LiveTick = origins, 50*time.Millisecond
	cfg.Hooks.AllowPrivate = true // receivers are httptest servers on loopback
	if configure != nil {
		configure(&cfg)
	}
	opts := []podium.Option{podium.WithRedis(rdb), podium.WithStoreOptions(redisstore.WithClock(now)), podium.WithPasswordCost(bcrypt.MinCost), podium.WithoutArchive()}
	if db != nil {
		opts[len(opts)-1] = podium.WithArchiveDB(db)
	}
	p, err := podium.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Admin.Accounts.Create(context.Background(), adminUser, adminPassword); err != nil {
		t.Fatal(err)
	}
	return p
}

// board creates a board and sets scores, in the given order, at the app's now.
func (a *app) board(def board.Board, scores ...any) *board.Board {
	a.t.Helper()
	b, err := a.store.CreateBoard(context.Background(), def)
	if err != nil {
		a.t.Fatal(err)
	}
	a.scores(b.ID, a.store, scores...)
	return &b
}

// scores submits member/score pairs ("ann", 10.0, "bob", 7.0) through s.
func (a *app) scores(id string, s *redisstore.Store, pairs ...any) {
	a.t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		sub := board.Submission{Member: pairs[i].(string), Score: toFloat(pairs[i+1]), Op: board.Set}
		if _, err := s.Submit(context.Background(), id, sub, board.Author{Actor: "test"}); err != nil {
			a.t.Fatal(err)
		}
	}
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	panic(fmt.Sprintf("score %T", v))
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// newPage opens a browser tab for the test; if the test fails, the tab's
// last state is saved as e2e/screenshots/<test>.png.
func newPage(t *testing.T) playwright.Page {
	t.Helper()
	ctx, err := browser.NewContext(playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: 1280, Height: 900},
	})
	if err != nil {
		t.Fatal(err)
	}
	generous(ctx)
	page, err := ctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			dir, _ := filepath.Abs("screenshots")
			_ = os.MkdirAll(dir, 0o755)
			path := filepath.Join(dir, unsafeName.ReplaceAllString(t.Name(), "_")+".png")
			if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(path), FullPage: playwright.Bool(true)}); err == nil {
				t.Logf("screenshot: %s", path)
			}
		}
		ctx.Close()
	})
	return page
}

// generous sets the deadlines of a context's actions and navigations to a
// minute, twice Playwright's default: tests run side by side on two cores
// shared with other work, and a step that waits for a core is not a failure.
func generous(ctx playwright.BrowserContext) {
	ctx.SetDefaultTimeout(60_000)
	ctx.SetDefaultNavigationTimeout(60_000)
}

// open loads a page and checks its HTTP status.
func open(t *testing.T, page playwright.Page, url string, status int) {
	t.Helper()
	res, err := page.Goto(url)
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	if res.Status() != status {
		t.Fatalf("open %s: status %d, want %d", url, res.Status(), status)
	}
}

// texts is the inner text of every match, trimmed.
func texts(t *testing.T, loc playwright.Locator) []string {
	t.Helper()
	all, err := loc.AllInnerTexts()
	if err != nil {
		t.Fatal(err)
	}
	for i := range all {
		all[i] = strings.TrimSpace(all[i])
	}
	return all
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// hostPage serves one HTML page from another origin (another port), to frame
// the app as a third-party site would.
func hostPage(t *testing.T, html string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, html)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
