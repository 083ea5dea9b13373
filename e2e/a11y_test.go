package e2e

import (
	"bytes"
	"fmt"
	"image/png"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"podium/board"
)

// TestEveryPagePassesAxe runs axe-core (every default rule, WCAG and best
// practice) on every public and admin page, at 1280 and 390 px, in the light
// and the dark scheme, and lists every violation: rule, impact, the elements
// and how to fix them. Each page is loaded once and shown in the four ways
// (the viewport resized, the preferred scheme emulated), which halves the
// test's time against a load per way; the tour's legs run side by side.
// Shown at 390 px, each page is also held to fitsAPhone: one walk of the
// tour for both (a walk of its own took a minute of make test).
func TestEveryPagePassesAxe(t *testing.T) {
	t.Parallel()
	start := time.Now()
	a := tourApp(t)
	axe, version := axeSource(t)
	var runs atomic.Int64
	walk(t, a, func(t *testing.T) playwright.Page { return tourPage(t, variant{width: 1280}, axe) }, func(t *testing.T, page playwright.Page, s stop) {
		for _, v := range []variant{{1280, false}, {1280, true}, {390, false}, {390, true}} {
			show(t, page, v)
			runs.Add(1)
			if vs := runAxe(t, page); len(vs) > 0 {
				t.Errorf("%s (%s, %s): %d axe-core %s rule(s) failed:\n%s", s.name, s.path, v, len(vs), version, describe(vs))
				snap(t, page, s.name+"-"+v.String())
			}
			if v == (variant{390, false}) {
				fitsAPhone(t, page, s)
			}
		}
	})
	t.Logf("axe-core %s: %d pages in 4 ways, %d runs in %v", version, len(stops()), runs.Load(), time.Since(start).Round(time.Millisecond))
}

// stepName is what a previous/next period link, only an arrow at 390 px,
// must be named.
var stepName = regexp.MustCompile(`^(Previous|Next) (day|week|month|year): \S`)

// fitsAPhone: the page, shown at 390 px, does not scroll sideways, every
// period tab is in view (none cut off in a strip that scrolls), and the
// previous/next period links, only arrows there, are named for what they do.
func fitsAPhone(t *testing.T, page playwright.Page, s stop) {
	t.Helper()
	if w := measureWidth(t, page); w.Scroll > w.Viewport {
		t.Errorf("%s (%s) is %d px wide in a %d px viewport: it scrolls sideways; widest: %s (right edge at %d px)",
			s.name, s.path, w.Scroll, w.Viewport, w.Widest, w.Right)
		snap(t, page, s.name+"-390px")
	}
	if n, _ := page.GetByTestId("tabs").Count(); n > 0 {
		cut, err := page.GetByTestId("tabs").Evaluate(`el => el.scrollWidth > el.clientWidth ? el.innerText.replace(/\s+/g, " ") : ""`, nil)
		must(t, err)
		if cut != "" {
			t.Errorf("%s (%s): the period tabs (%s) do not fit in 390 px", s.name, s.path, cut)
		}
	}
	for _, id := range []string{"prev", "next"} {
		if n, _ := page.GetByTestId(id).Count(); n > 0 {
			if err := expect.Locator(page.GetByTestId(id)).ToHaveAccessibleName(stepName); err != nil {
				t.Errorf("%s (%s): the %s period link: %v", s.name, s.path, id, err)
			}
		}
	}
}

// TestMemberPageNamesPeriods: a member's page names each period as the board
// does ("Week 1, 4–10 Jan 2027"), never by its key ("2027-W01").
func TestMemberPageNamesPeriods(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "chess", Title: "Chess", Periods: board.Kinds, Schedule: "0 18 * * FRI"}, "ann", 10)
	page := newPage(t)
	open(t, page, a.URL+"/b/chess/m/ann", 200)
	must(t, expect.Locator(page.GetByTestId("period-row").Locator("th")).ToHaveText([]string{
		"Today Wednesday 6 January 2027", "This week Week 1, 4–10 Jan 2027", "This month January 2027", "This year 2027", "This round Round of Fri 1 Jan 2027 18:00 – Fri 8 Jan 18:00", "All time",
		"Last 24 hours", "Last 7 days", "Last 30 days"}))
	must(t, expect.Locator(page.GetByTestId("periods")).Not().ToContainText(regexp.MustCompile(`\d{4}-(W\d\d|\d\d)`)))
}

// TestDarkWidgetOnLightPage: the dark widget framed by a light page shows
// the page around its rounded corners, not an opaque dark frame backdrop.
func TestDarkWidgetOnLightPage(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "race", Title: "Race"}, "ann", 30, "bob", 20)
	host := hostPage(t, `<!doctype html><title>Fan site</title><body style="margin:0;padding:20px;background:#fafafa">`+
		`<iframe data-podium style="border:0;width:360px;height:260px;display:block" src="`+a.URL+`/embed/race?theme=dark"></iframe>`)
	for _, dark := range []bool{false, true} { // the reader's setting does not matter
		page := tourPage(t, variant{width: 400, dark: dark}, "")
		open(t, page, host, 200)
		must(t, expect.Locator(page.FrameLocator("iframe").GetByTestId("widget")).ToBeVisible())
		shot, err := page.Screenshot()
		must(t, err)
		img, err := png.Decode(bytes.NewReader(shot))
		must(t, err)
		inside := img.At(20+180, 20+130) // in the card
		// The frame's top corners, outside the card's rounded ones.
		for _, p := range [][2]int{{20, 20}, {379, 20}} {
			r, g, b, _ := img.At(p[0], p[1]).RGBA()
			if got := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8); got != "#fafafa" {
				ir, ig, ib, _ := inside.RGBA()
				t.Errorf("reader prefers dark=%v: the frame's corner at %v is %s, not the host page's #fafafa (the card is #%02x%02x%02x)",
					dark, p, got, ir>>8, ig>>8, ib>>8)
			}
		}
	}
}
