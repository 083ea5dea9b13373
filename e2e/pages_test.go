package e2e

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"podium/board"
	"podium/redisstore"
)

func TestHomeListsBoards(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "chess", Title: "Chess Club"}, "magnus", 2850, "hikaru", 2800, "fabi", 2790, "ian", 2700)
	a.board(board.Board{ID: "golf", Title: "Sunday Golf", Order: board.LowerIsBetter}, "tiger", 68, "rory", 70)
	page := newPage(t)
	open(t, page, a.URL+"/", 200)
	cards := page.GetByTestId("board-card")
	must(t, expect.Locator(cards).ToHaveCount(2))
	must(t, expect.Locator(cards.First()).ToContainText("Chess Club"))
	if got := texts(t, cards.First().GetByTestId("top-row")); len(got) != 3 || !strings.Contains(got[0], "magnus") || !strings.Contains(got[0], "2,850") {
		t.Fatalf("chess top 3: %q", got)
	}
	if got := texts(t, cards.Nth(1).GetByTestId("top-row")); len(got) != 2 || !strings.Contains(got[0], "tiger") {
		t.Fatalf("golf top: %q (lower is better)", got)
	}
	must(t, cards.First().GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Chess Club"}).Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/b/chess$`)))
	must(t, expect.Locator(page.GetByTestId("board-title")).ToHaveText("Chess Club"))
}

func TestTiedRanksInEachRankStyle(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	scores := []any{"ann", 100, "bob", 90, "cat", 90, "dan", 80, "eve", 80, "fay", 70}
	want := map[board.RankStyle][]string{
		board.Competition: {"1", "2", "2", "4", "4", "6"},
		board.Dense:       {"1", "2", "2", "3", "3", "4"},
		board.Ordinal:     {"1", "2", "3", "4", "5", "6"},
	}
	page := newPage(t)
	for style, ranks := range want {
		a.board(board.Board{ID: string(style), Title: "Style " + string(style), RankStyle: style}, scores...)
		open(t, page, a.URL+"/b/"+string(style), 200)
		rows := page.GetByTestId("row")
		must(t, expect.Locator(rows).ToHaveCount(6))
		if got := texts(t, rows.GetByTestId("rank")); !slices.Equal(got, ranks) {
			t.Fatalf("%s ranks %v, want %v", style, got, ranks)
		}
		if got := texts(t, rows.GetByTestId("name")); !slices.Equal(got, []string{"ann", "bob", "cat", "dan", "eve", "fay"}) {
			t.Fatalf("%s order %v (earliest first among ties)", style, got)
		}
		tied, err := page.Locator("tr:has(.tied)").Count()
		must(t, err)
		if style != board.Ordinal {
			if tied != 4 {
				t.Fatalf("%s: %d rows marked tied, want 4", style, tied)
			}
		} else if tied != 0 {
			t.Fatalf("ordinal marks %d rows tied", tied)
		}
	}
}

func TestPeriodNavigationAcrossYearBoundary(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	b := a.board(board.Board{ID: "weekly", Title: "Weekly Cup", Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly},
		"now-player", 5)
	for _, at := range []struct {
		when   time.Time
		member string
	}{
		{time.Date(2026, 12, 31, 10, 0, 0, 0, time.UTC), "w53-player"}, // 2026-W53
		{time.Date(2026, 12, 22, 10, 0, 0, 0, time.UTC), "w52-player"}, // 2026-W52
	} {
		past := redisstore.NewStore(a.redis(), redisstore.WithClock(func() time.Time { return at.when }))
		a.scores(b.ID, past, at.member, 42)
	}
	page := newPage(t)
	open(t, page, a.URL+"/b/weekly", 200)
	title := page.GetByTestId("period-title")
	must(t, expect.Locator(title).ToHaveText("Week 1, 4–10 Jan 2027"))
	must(t, expect.Locator(page.GetByTestId("next")).ToHaveCount(0)) // no future weeks
	must(t, page.GetByTestId("prev").Click())
	must(t, expect.Locator(title).ToHaveText("Week 53, 28 Dec 2026 – 3 Jan 2027"))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`at=2026-W53`)))
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"w53-player"}))
	must(t, page.GetByTestId("prev").Click())
	must(t, expect.Locator(title).ToHaveText("Week 52, 21–27 Dec 2026"))
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"w52-player"}))
	must(t, page.GetByTestId("next").Click())
	must(t, page.GetByTestId("next").Click())
	must(t, expect.Locator(title).ToHaveText("Week 1, 4–10 Jan 2027"))
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"now-player"}))
	// Tabs: today, then all time with every week's players.
	tabs := page.GetByTestId("tabs")
	must(t, tabs.GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Today"}).Click())
	must(t, expect.Locator(title).ToHaveText("Wednesday 6 January 2027"))
	must(t, tabs.GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "All time"}).Click())
	must(t, expect.Locator(title).ToHaveText("All time"))
	must(t, expect.Locator(page.GetByTestId("row")).ToHaveCount(3))
	// An empty past period says so.
	open(t, page, a.URL+"/b/weekly?period=week&at=2026-W40", 200)
	must(t, expect.Locator(page.GetByTestId("empty")).ToContainText("No scores in Week 40"))
}

func TestPagination(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	var scores []any
	for i := 1; i <= 60; i++ {
		scores = append(scores, fmt.Sprintf("p%02d", i), 1000-i)
	}
	a.board(board.Board{ID: "big", Title: "Big Board"}, scores...)
	page := newPage(t)
	open(t, page, a.URL+"/b/big", 200)
	rows := page.GetByTestId("row")
	must(t, expect.Locator(rows).ToHaveCount(25))
	must(t, expect.Locator(page.GetByTestId("page-label")).ToHaveText("Page 1 of 3"))
	must(t, expect.Locator(page.GetByTestId("count")).ToHaveText("60 members"))
	must(t, page.GetByTestId("next-page").Click())
	must(t, expect.Locator(page.GetByTestId("page-label")).ToHaveText("Page 2 of 3"))
	must(t, expect.Locator(rows.First().GetByTestId("rank")).ToHaveText("26"))
	must(t, page.GetByTestId("next-page").Click())
	must(t, expect.Locator(rows).ToHaveCount(10))
	must(t, expect.Locator(page.GetByTestId("next-page")).ToHaveCount(0))
	must(t, expect.Locator(rows.Last().GetByTestId("name")).ToHaveText("p60"))
	open(t, page, a.URL+"/b/big?size=50", 200)
	must(t, expect.Locator(rows).ToHaveCount(50))
	open(t, page, a.URL+"/b/big?page=9", 404)
	must(t, expect.Locator(page.GetByTestId("error-message")).ToContainText("Big Board has 3 pages"))
}

func TestNameSearch(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	b := a.board(board.Board{ID: "names", Title: "Names"})
	for i, n := range []string{"Alice Moreau", "alistair", "Bob", "ALINA", "Zed"} {
		sub := board.Submission{Member: fmt.Sprintf("id-%d", i), Name: n, Score: float64(10 * (i + 1)), Op: board.Set}
		if _, err := a.store.Submit(t.Context(), b.ID, sub, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	page := newPage(t)
	open(t, page, a.URL+"/b/names", 200)
	must(t, page.GetByTestId("search").Fill("ali"))
	must(t, page.GetByTestId("search").Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`q=ali`)))
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"ALINA", "alistair", "Alice Moreau"}))
	must(t, expect.Locator(page.GetByTestId("rank")).ToHaveText([]string{"2", "4", "5"}))
	must(t, expect.Locator(page.GetByTestId("search-summary")).ToContainText("3 matches"))
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Show everyone"}).Click())
	must(t, expect.Locator(page.GetByTestId("row")).ToHaveCount(5))
	open(t, page, a.URL+"/b/names?q=nobody", 200)
	must(t, expect.Locator(page.GetByTestId("empty")).ToContainText("Nobody whose name starts with “nobody”"))
}

func TestAroundMeHighlightsMember(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	var scores []any
	for i := 1; i <= 30; i++ {
		scores = append(scores, fmt.Sprintf("m%02d", i), 300-i)
	}
	a.board(board.Board{ID: "around", Title: "Around"}, scores...)
	page := newPage(t)
	open(t, page, a.URL+"/b/around/around/m15", 200)
	rows := page.GetByTestId("row")
	must(t, expect.Locator(rows).ToHaveCount(11))
	me := page.Locator("tr.me")
	must(t, expect.Locator(me).ToHaveCount(1))
	must(t, expect.Locator(me).ToHaveAttribute("data-member", "m15"))
	must(t, expect.Locator(me).ToHaveAttribute("aria-current", "true"))
	must(t, expect.Locator(rows.First().GetByTestId("name")).ToHaveText("m10"))
	must(t, expect.Locator(page.GetByTestId("headline")).ToContainText("15th of 30"))
	bg, err := me.Locator("td").First().Evaluate("td => getComputedStyle(td).backgroundColor", nil)
	must(t, err)
	if bg == "rgba(0, 0, 0, 0)" {
		t.Fatal("the member's row is not highlighted")
	}
	// Near the top the window slides down and stays full.
	open(t, page, a.URL+"/b/around/around/m02?k=3", 200)
	must(t, expect.Locator(rows).ToHaveCount(7))
	must(t, expect.Locator(rows.First().GetByTestId("name")).ToHaveText("m01"))
}

func TestBadPeriodKeyGives404(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "cup", Title: "The Cup", Periods: []board.Kind{board.Weekly, board.AllTime}}, "x", 1)
	page := newPage(t)
	for _, tc := range []struct{ path, says string }{
		{"/b/cup?period=week&at=2026-W60", "outside weeks 1-53 of 2026"},
		{"/b/cup?period=week&at=last-week", "not an ISO week like 2026-W47"},
		{"/b/cup?period=day", "The Cup has no “day” period"},
		{"/b/nope", "There is no board called “nope”"},
	} {
		open(t, page, a.URL+tc.path, 404)
		must(t, expect.Locator(page.GetByTestId("error")).ToContainText("404"))
		must(t, expect.Locator(page.GetByTestId("error-message")).ToContainText(tc.says))
	}
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "All boards"}).Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/$`)))
}

// TestWidgetInForeignPage pastes the board page's own embed snippet into a
// page from another origin: the widget renders and the frame takes its height.
func TestWidgetInForeignPage(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	var scores []any
	for i := 1; i <= 14; i++ {
		scores = append(scores, fmt.Sprintf("racer-%d", i), i*10)
	}
	a.board(board.Board{ID: "race", Title: "Race"}, scores...)
	page := newPage(t)
	open(t, page, a.URL+"/b/race", 200)
	snippet, err := page.GetByTestId("snippet").InputValue()
	must(t, err)
	if !strings.Contains(snippet, a.URL+"/embed/race") {
		t.Fatalf("snippet does not point at this site: %s", snippet)
	}
	host := hostPage(t, "<!doctype html><title>Fan site</title><h1>Fan site</h1><div style=\"width:420px\">"+snippet+"</div>")
	if strings.Contains(host, a.URL) {
		t.Fatal("host page must be on another origin")
	}
	open(t, page, host, 200)
	frame := page.FrameLocator("iframe[data-podium]")
	must(t, expect.Locator(frame.GetByTestId("row")).ToHaveCount(10))
	must(t, expect.Locator(frame.GetByTestId("name").First()).ToHaveText("racer-14"))
	// The widget reports its height; the snippet's listener applies it.
	handle, err := page.WaitForFunction(`() => {
		const f = document.querySelector("iframe[data-podium]");
		return f && f.style.height !== "480px" && parseInt(f.style.height) > 100 ? f.style.height : false;
	}`, nil)
	must(t, err)
	height, _ := handle.JSONValue()
	inner, err := frame.Locator("html").Evaluate("el => Math.ceil(el.getBoundingClientRect().height)", nil)
	must(t, err)
	if h, _ := strconv.Atoi(strings.TrimSuffix(fmt.Sprint(height), "px")); h != toInt(inner) {
		t.Fatalf("frame height %v, widget content %v", height, inner)
	}
	scrolls, err := frame.Locator("html").Evaluate("el => el.scrollHeight > el.clientHeight", nil)
	must(t, err)
	if scrolls == true {
		t.Fatal("the widget scrolls inside its frame")
	}
	// Links in the widget open the board outside the frame.
	if target, _ := frame.GetByTestId("name").First().GetAttribute("href"); !strings.HasPrefix(target, a.URL+"/b/race/m/") {
		t.Fatalf("widget link %q", target)
	}
}

func toInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case float64:
		return int(x)
	}
	return -1
}

// TestForeignFramingRefused: a board page framed by another site is refused
// always; a widget is refused unless that site is in the embed allow-list.
func TestForeignFramingRefused(t *testing.T) {
	t.Parallel()
	var body string
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(host.Close)
	page := newPage(t)
	framed := func(a *app, path string) bool {
		t.Helper()
		body = `<!doctype html><title>Other site</title><iframe id="f" src="` + html.EscapeString(a.URL+path) + `"></iframe>`
		open(t, page, host.URL, 200)
		frames := page.Frames()
		if len(frames) != 2 {
			t.Fatalf("%s: %d frames", path, len(frames))
		}
		must(t, frames[1].WaitForLoadState())
		n, err := frames[1].Locator("text=Framed Board").Count()
		return err == nil && n > 0
	}
	// Allow-list without the host: both refused.
	a := startApp(t, "https://allowed.example")
	a.board(board.Board{ID: "secret", Title: "Framed Board"}, "x", 1)
	for _, path := range []string{"/b/secret", "/embed/secret"} {
		if framed(a, path) {
			t.Fatalf("%s rendered inside a frame of %s", path, host.URL)
		}
	}
	// Allow-list with the host: the widget is framed, the board page still not.
	a = startApp(t, host.URL)
	a.board(board.Board{ID: "secret", Title: "Framed Board"}, "x", 1)
	if !framed(a, "/embed/secret") {
		t.Fatal("the widget is refused by an allowed origin")
	}
	if framed(a, "/b/secret") {
		t.Fatal("a board page rendered inside a foreign frame")
	}
}
