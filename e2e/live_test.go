package e2e

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"podium/board"
	"podium/redisstore"
)

// zincrby changes a score the way a game server would: straight into the
// app's Redis database, from a client that is not the app.
func (a *app) zincrby(b *board.Board, by float64, member string) {
	a.t.Helper()
	key := redisstore.ZSetKey(b.ID, b.Current(board.AllTime, testNow))
	if err := a.redis().ZIncrBy(context.Background(), key, by, member).Err(); err != nil {
		a.t.Fatal(err)
	}
}

func waitLive(t *testing.T, scope interface {
	GetByTestId(any) playwright.Locator
}) {
	t.Helper()
	must(t, expect.Locator(scope.GetByTestId("live-status")).ToHaveText("Live"))
}

func TestLiveRowMovesOnOutsideWrite(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	b := a.board(board.Board{ID: "direct", Title: "Direct Writes", TieBreak: board.ByMember}, "ann", 50, "bob", 40, "cat", 30, "dan", 20)
	page := newPage(t)
	open(t, page, a.URL+"/b/direct", 200)
	waitLive(t, page)
	names := page.GetByTestId("name")
	must(t, expect.Locator(names).ToHaveText([]string{"ann", "bob", "cat", "dan"}))

	a.zincrby(b, 25, "dan") // 45: from 4th to 2nd
	must(t, expect.Locator(names).ToHaveText([]string{"ann", "dan", "bob", "cat"}))
	dan := page.Locator(`tr[data-member="dan"]`)
	must(t, expect.Locator(dan.GetByTestId("rank")).ToHaveText("2"))
	must(t, expect.Locator(dan.GetByTestId("score")).ToHaveText("45"))
	must(t, expect.Locator(dan.GetByTestId("move")).ToHaveText("▲2"))
	must(t, expect.Locator(page.Locator(`tr[data-member="cat"]`).GetByTestId("move")).ToHaveText("▼1"))

	// A new member fades in, a tie shows as equal ranks, the count follows.
	a.zincrby(b, 40, "eve")
	must(t, expect.Locator(page.Locator(`tr[data-member="eve"]`).GetByTestId("rank")).ToHaveText("3"))
	must(t, expect.Locator(page.Locator(`tr[data-member="bob"]`).GetByTestId("rank")).ToHaveText("3"))
	must(t, expect.Locator(page.GetByTestId("count")).ToHaveText("5 members"))
	// A member removed from outside leaves the table.
	if err := a.redis().ZRem(context.Background(), redisstore.ZSetKey(b.ID, b.Current(board.AllTime, testNow)), "ann").Err(); err != nil {
		t.Fatal(err)
	}
	must(t, expect.Locator(names).ToHaveText([]string{"dan", "eve", "bob", "cat"}))
	must(t, expect.Locator(page.Locator(`tr[data-member="dan"]`).GetByTestId("rank")).ToHaveText("1"))
}

func TestLiveInsideForeignIframe(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	b := a.board(board.Board{ID: "widget", Title: "Widget Board", TieBreak: board.ByMember}, "ann", 50, "bob", 40, "cat", 30)
	host := hostPage(t, `<!doctype html><title>Fan site</title><iframe data-podium style="border:0;width:420px;height:400px" src="`+a.URL+`/embed/widget?limit=5"></iframe>`)
	page := newPage(t)
	open(t, page, host, 200)
	frame := page.FrameLocator("iframe[data-podium]")
	waitLive(t, frame)
	must(t, expect.Locator(frame.GetByTestId("name")).ToHaveText([]string{"ann", "bob", "cat"}))
	a.zincrby(b, 100, "cat")
	must(t, expect.Locator(frame.GetByTestId("name")).ToHaveText([]string{"cat", "ann", "bob"}))
	must(t, expect.Locator(frame.Locator(`tr[data-member="cat"]`).GetByTestId("move")).ToHaveText("▲2"))
	// Links built by the script still leave the frame.
	must(t, expect.Locator(frame.GetByTestId("name").First()).ToHaveAttribute("target", "_blank"))
}

func TestLiveAroundMeFollowsMember(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	var scores []any
	for i := 1; i <= 30; i++ {
		scores = append(scores, fmt.Sprintf("m%02d", i), 300-i)
	}
	b := a.board(board.Board{ID: "climb", Title: "Climb", TieBreak: board.ByMember}, scores...)
	page := newPage(t)
	open(t, page, a.URL+"/b/climb/around/m20?k=2", 200)
	waitLive(t, page)
	me := page.Locator("tr.me")
	must(t, expect.Locator(me.GetByTestId("rank")).ToHaveText("20"))
	a.zincrby(b, 15, "m20") // 295: passes m05..m19 and lands 5th
	must(t, expect.Locator(me.GetByTestId("rank")).ToHaveText("5"))
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"m03", "m04", "m20", "m05", "m06"}))
	must(t, expect.Locator(page.GetByTestId("headline")).ToHaveText(regexp.MustCompile(`^5th of 30`)))
	must(t, expect.Locator(page.Locator("[data-live-announce]")).ToHaveText("m20 moved up to 5th, from 20th."))
	a.zincrby(b, 100, "m20")
	must(t, expect.Locator(me.GetByTestId("rank")).ToHaveText("1"))
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"m20", "m01", "m02", "m03", "m04"}))
}

// TestLiveAmongFriends: a member's friends page moves live: a friend's
// outside write reorders the list and changes the "Overall" column, and
// the member's own row stays marked.
func TestLiveAmongFriends(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	b := a.board(board.Board{ID: "pals", Title: "Pals", TieBreak: board.ByMember}, "ann", 50, "bob", 40, "cat", 30, "dan", 20, "eve", 10)
	if _, _, err := a.store.SetFriends(context.Background(), b.ID, "dan", []string{"bob", "eve"}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	page := newPage(t)
	open(t, page, a.URL+"/b/pals/m/dan/friends?period=all", 200)
	waitLive(t, page)
	names := page.GetByTestId("name")
	must(t, expect.Locator(names).ToHaveText([]string{"bob", "dan", "eve"}))
	must(t, expect.Locator(page.Locator("tr.me").GetByTestId("rank")).ToHaveText("2"))
	a.zincrby(b, 100, "eve") // 110: first among them and on the board
	must(t, expect.Locator(names).ToHaveText([]string{"eve", "bob", "dan"}))
	must(t, expect.Locator(page.Locator(`tr[data-member="eve"] td.field`)).ToHaveText("1"))
	must(t, expect.Locator(page.Locator(`tr[data-member="dan"] td.field`)).ToHaveText("5"))
	must(t, expect.Locator(page.Locator("tr.me").GetByTestId("rank")).ToHaveText("3"))
}

// TestLiveSegment: a board page filtered to a segment moves live when an
// outside writer (FCALL) changes a member's score, and when one moves a
// member into the segment, which changes only the segment's keys.
func TestLiveSegment(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	b := a.board(board.Board{ID: "geo", Title: "Geo", Segments: []string{"country"}, Periods: []board.Kind{board.AllTime}})
	for _, s := range []struct {
		m, c  string
		score float64
	}{{"ann", "NO", 50}, {"bob", "SE", 40}, {"cat", "NO", 30}, {"dan", "NO", 20}} {
		sub := board.Submission{Member: s.m, Score: s.score, Op: board.Set, Segments: map[string]string{"country": s.c}}
		if _, err := a.store.Submit(context.Background(), b.ID, sub, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	page := newPage(t)
	open(t, page, a.URL+"/b/geo?period=all&segment=country:NO", 200)
	waitLive(t, page)
	names := page.GetByTestId("name")
	must(t, expect.Locator(names).ToHaveText([]string{"ann", "cat", "dan"}))
	must(t, expect.Locator(page.Locator(`tr[data-member="cat"] td.field`)).ToHaveText("3"))
	def := "lb:{geo}:def"
	if err := a.redis().FCall(context.Background(), "podium_submit", []string{def}, "dan", "incr", "100").Err(); err != nil {
		t.Fatal(err)
	}
	must(t, expect.Locator(names).ToHaveText([]string{"dan", "ann", "cat"}))
	must(t, expect.Locator(page.Locator(`tr[data-member="ann"] td.field`)).ToHaveText("2"))
	if err := a.redis().FCall(context.Background(), "podium_submit_segments", []string{def}, "bob", `{"country":"NO"}`, "incr", "5").Err(); err != nil {
		t.Fatal(err)
	}
	must(t, expect.Locator(names).ToHaveText([]string{"dan", "ann", "bob", "cat"}))
	must(t, expect.Locator(page.GetByTestId("count")).ToHaveText("4 members"))
}
