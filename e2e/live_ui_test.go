package e2e

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/playwright-community/playwright-go"
	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
)

// mover reorders a board from outside, one write at a time, each shown on
// the page before the next: the members take turns, in a scrambled order,
// jumping two places ahead (they stand 10 points apart), so rows keep moving
// both ways. Frames so come between a person's key presses at the same
// points however loaded the machine is (a writer on a timer raced them).
type mover struct {
	t       *testing.T
	rdb     *redis.Client
	key     string
	page    playwright.Page
	members []string
	scores  map[string]int
	writes  int
}

func newMover(t *testing.T, a *app, b *board.Board, page playwright.Page, scores map[string]int, members []string) *mover {
	t.Helper()
	return &mover{t: t, rdb: a.redis(), key: redisstore.ZSetKey(b.ID, b.Current(board.AllTime, testNow)), page: page, members: members, scores: scores}
}

// step makes the next member jump and waits until its row shows the new score.
func (m *mover) step() {
	m.t.Helper()
	who := m.members[(m.writes*7)%len(m.members)]
	m.writes++
	m.scores[who] += 25
	must(m.t, m.rdb.ZIncrBy(context.Background(), m.key, 25, who).Err())
	waitTrue(m.t, m.page, fmt.Sprintf("write %d (%s to %d) shown", m.writes, who, m.scores[who]), `([m, s]) => {
		const el = document.querySelector('tr[data-member="' + m + '"] [data-testid=score]');
		return !!el && el.textContent.replace(/\D/g, "") === s;
	}`, []any{who, strconv.Itoa(m.scores[who])})
}

// waitTrue waits until fn(arg) holds in the page, for up to 30 s. The page
// checks it itself, at each animation frame, and answers once: one round
// trip to the browser rather than one per poll. (page.WaitForFunction would
// do the same, but the app's CSP forbids the eval it polls with.)
func waitTrue(t *testing.T, page playwright.Page, what, fn string, arg any) {
	t.Helper()
	v, err := page.Evaluate(`async (arg) => {
		const ok = `+fn+`;
		for (const deadline = Date.now() + 30000; !ok(arg); ) {
			if (Date.now() > deadline) return false;
			await new Promise(r => requestAnimationFrame(r));
		}
		return true;
	}`, arg)
	must(t, err)
	if v != true {
		t.Fatalf("waited 30 s for: %s", what)
	}
}

// focused describes the element with keyboard focus: its test id or tag, and
// the member of its row, if any.
func focused(t *testing.T, page playwright.Page) string {
	t.Helper()
	v, err := page.Evaluate(`() => {
		const el = document.activeElement;
		if (!el || el === document.body) return "body";
		const row = el.closest("tr[data-member]");
		return (el.getAttribute("data-testid") || el.tagName.toLowerCase()) + (row ? ":" + row.getAttribute("data-member") : "");
	}`)
	must(t, err)
	return v.(string)
}

// TestLiveKeepsKeyboardFocus: rows reorder while someone tabs through the
// page with real key presses; focus never falls to the page body, a focused
// row link stays focused while its row moves, and tabbing reaches "Embed this
// board" in about as many presses as on a still page.
func TestLiveKeepsKeyboardFocus(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	var scores []any
	var members []string
	now := map[string]int{}
	for i := range 10 {
		m := fmt.Sprintf("p%02d", i)
		members = append(members, m)
		scores = append(scores, m, 1000-i*10)
		now[m] = 1000 - i*10
	}
	b := a.board(board.Board{ID: "tabbing", Title: "Tabbing", TieBreak: board.ByMember}, scores...)
	page := newPage(t)
	open(t, page, a.URL+"/b/tabbing", 200)
	waitLive(t, page)
	// The most rows seen sliding when a frame was applied.
	_, err := page.Evaluate(`() => {
		window.__sliding = 0;
		document.addEventListener("podium:frame", () => {
			window.__sliding = Math.max(window.__sliding, document.querySelectorAll("tr.moving").length);
		});
	}`)
	must(t, err)
	mv := newMover(t, a, b, page, now, members)

	// Presses from the search box to the embed summary, with between(),
	// if any, after each that lands on the way: focus is checked after the
	// press and again after what came between.
	tabsToEmbed := func(between func()) int {
		must(t, page.GetByTestId("search").Focus())
		for n := 1; n <= 60; n++ {
			must(t, page.Keyboard().Press("Tab"))
			f := focused(t, page)
			if f != "body" && f != "summary" && between != nil {
				between()
				f = focused(t, page)
			}
			switch f {
			case "body":
				t.Fatalf("after %d presses focus fell to the page body", n)
			case "summary":
				return n
			}
		}
		t.Fatal("60 presses never reached “Embed this board”")
		return 0
	}
	still := tabsToEmbed(nil)
	// A frame that reorders the rows after every press. Rows that move past
	// the focused one are met again or skipped, as in any list that
	// changes, but focus never restarts from the top: at most one more
	// press per row.
	moving := tabsToEmbed(mv.step)
	t.Logf("%d presses to the embed code on a still page, %d while rows moved", still, moving)
	if moving > still+10 {
		t.Fatalf("tabbing to the embed code took %d presses while rows moved, %d on a still page", moving, still)
	}
	if n, err := page.Evaluate(`() => window.__sliding`); err != nil || toInt(n) == 0 {
		t.Fatalf("no row slid while focus moved (%v, %v): the test did not test anything", n, err)
	}

	// A row link keeps focus while its row moves up and down.
	link := page.Locator(`tr[data-member="p05"]`).GetByTestId("name")
	must(t, link.Focus())
	rank0, err := page.Locator(`tr[data-member="p05"]`).GetAttribute("data-rank")
	must(t, err)
	moved := false
	for range 40 {
		mv.step()
		if f := focused(t, page); f != "name:p05" {
			t.Fatalf("focus moved to %q while p05's row moved", f)
		}
		if r, _ := page.Locator(`tr[data-member="p05"]`).GetAttribute("data-rank"); r != rank0 {
			moved = true
		}
	}
	if !moved {
		t.Fatal("p05's row never moved: the test did not test anything")
	}
	must(t, page.Keyboard().Press("Tab"))
	if f := focused(t, page); f == "body" {
		t.Fatal("Tab from a row link fell to the body")
	}
}

// TestUnchangedScoreNeverFlashes: only a score cell whose shown value changed
// flashes, once per change, however often its row moves.
func TestUnchangedScoreNeverFlashes(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	b := a.board(board.Board{ID: "flashy", Title: "Flashy", TieBreak: board.ByMember}, "ann", 50, "bob", 40, "cat", 30, "dan", 20, "eve", 10)
	page := newPage(t)
	open(t, page, a.URL+"/b/flashy", 200)
	waitLive(t, page)
	_, err := page.Evaluate(`() => {
		window.__flashes = [];
		document.addEventListener("animationstart", e => {
			if (e.animationName === "score-changed") window.__flashes.push(e.target.closest("tr").getAttribute("data-member"));
		});
	}`)
	must(t, err)
	// eve climbs past everyone, one step at a time: every other row moves
	// down, none of their scores changes.
	for i, to := range []float64{25, 35, 45, 55} {
		a.zincrby(b, to-[]float64{10, 25, 35, 45}[i], "eve")
		must(t, expect.Locator(page.Locator(`tr[data-member="eve"]`).GetByTestId("score")).ToHaveText(fmt.Sprint(to)))
		// Its flash has started before the next change comes: each change
		// renders on its own (two in one animation frame would flash once).
		waitTrue(t, page, fmt.Sprintf("eve's flash %d", i+1), `n => window.__flashes.filter(m => m === "eve").length >= n`, i+1)
	}
	// Every flash the changes started, wherever, has run to its end (and
	// its animationstart was counted): none is still to come.
	waitTrue(t, page, "every flash ended", `() => document.getAnimations().every(a => a.animationName !== "score-changed")`, nil)
	got, err := page.Evaluate(`() => window.__flashes`)
	must(t, err)
	flashes := map[string]int{}
	for _, m := range got.([]any) {
		flashes[m.(string)]++
	}
	if flashes["eve"] != 4 || len(flashes) != 1 {
		t.Fatalf("flashes by member %v; want eve's score 4 times and nothing else", flashes)
	}
	// No cell keeps the class after its animation, so nothing can replay it.
	must(t, expect.Locator(page.Locator("td.score-changed")).ToHaveCount(0))
}

// TestRecentChangesFollowThePeriod: the recent-changes panel updates live with
// the period on screen's own figures, and a past period shows "Closed" and no
// recent changes.
func TestRecentChangesFollowThePeriod(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "recent", Title: "Recent", TieBreak: board.ByMember, Periods: []board.Kind{board.Weekly, board.AllTime}}, "ann", 50)
	page := newPage(t)
	open(t, page, a.URL+"/b/recent?period=all", 200)
	waitLive(t, page)
	items := page.GetByTestId("recent").Locator("li")
	must(t, expect.Locator(items).ToHaveCount(1))
	sub := board.Submission{Member: "bob", Name: "Bob", Score: 70, Op: board.Set}
	if _, err := a.store.Submit(context.Background(), "recent", sub, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	must(t, expect.Locator(items).ToHaveCount(2))
	must(t, expect.Locator(items.First()).ToContainText("Bob"))
	must(t, expect.Locator(items.First()).ToContainText("1st"))

	// Last week: closed, so no "Live" and no recent changes.
	b, err := a.store.Board(context.Background(), "recent")
	must(t, err)
	last := b.Current(board.Weekly, testNow).Prev()
	open(t, page, a.URL+"/b/recent?period=week&at="+last.Key, 200)
	must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Closed"))
	must(t, expect.Locator(page.Locator("[data-live-recent]")).ToHaveCount(0))
}
