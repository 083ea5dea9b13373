package e2e

// How the tour is walked: the viewports and colour schemes, a tab per leg
// (a console leg's holding the admin's session), the legs side by side,
// and what is checked on each page once it has settled.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

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
