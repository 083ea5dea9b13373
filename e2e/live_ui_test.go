package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"podium/board"
	"podium/redisstore"
)

// churn reorders a board from outside every interval until stop is called:
// the members take turns, in a scrambled order, jumping two places ahead
// (they stand 10 points apart), so rows keep moving both ways.
func churn(t *testing.T, b *board.Board, members []string, every time.Duration) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		key := redisstore.ZSetKey(b.ID, b.Current(board.AllTime, testNow))
		rdb := redisSrv.Client(t)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(every):
			}
			_ = rdb.ZIncrBy(context.Background(), key, 25, members[(i*7)%len(members)]).Err()
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
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
	a := startApp(t)
	var scores []any
	var members []string
	for i := range 10 {
		m := fmt.Sprintf("p%02d", i)
		members = append(members, m)
		scores = append(scores, m, 1000-i*10)
	}
	b := a.board(board.Board{ID: "tabbing", Title: "Tabbing", TieBreak: board.ByMember}, scores...)
	page := newPage(t)
	open(t, page, a.URL+"/b/tabbing", 200)
	waitLive(t, page)

	// Presses from the search box to the embed summary on a still page.
	tabsToEmbed := func() int {
		must(t, page.GetByTestId("search").Focus())
		for n := 1; n <= 60; n++ {
			must(t, page.Keyboard().Press("Tab"))
			time.Sleep(60 * time.Millisecond) // a person's pace, while frames arrive
			if f := focused(t, page); f == "body" {
				t.Fatalf("after %d presses focus fell to the page body", n)
			} else if f == "summary" {
				return n
			}
		}
		t.Fatal("60 presses never reached “Embed this board”")
		return 0
	}
	still := tabsToEmbed()

	stop := churn(t, b, members, 40*time.Millisecond)
	defer stop()
	must(t, expect.Locator(page.Locator("tr.moving").First()).ToBeAttached())
	// Rows that move past the focused one are met again or skipped, as in
	// any list that changes, but focus never restarts from the top: at most
	// one more press per row.
	if moving := tabsToEmbed(); moving > still+10 {
		t.Fatalf("tabbing to the embed code took %d presses while rows moved, %d on a still page", moving, still)
	}

	// A row link keeps focus while its row moves up and down.
	link := page.Locator(`tr[data-member="p05"]`).GetByTestId("name")
	must(t, link.Focus())
	rank0, err := page.Locator(`tr[data-member="p05"]`).GetAttribute("data-rank")
	must(t, err)
	moved := false
	for range 40 {
		time.Sleep(50 * time.Millisecond)
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
	stop()
	must(t, page.Keyboard().Press("Tab"))
	if f := focused(t, page); f == "body" {
		t.Fatal("Tab from a row link fell to the body")
	}
}

// TestUnchangedScoreNeverFlashes: only a score cell whose shown value changed
// flashes, once per change, however often its row moves.
func TestUnchangedScoreNeverFlashes(t *testing.T) {
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
		zincrby(t, b, to-[]float64{10, 25, 35, 45}[i], "eve")
		must(t, expect.Locator(page.Locator(`tr[data-member="eve"]`).GetByTestId("score")).ToHaveText(fmt.Sprint(to)))
		time.Sleep(300 * time.Millisecond) // let each change render on its own
	}
	time.Sleep(1500 * time.Millisecond)
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
