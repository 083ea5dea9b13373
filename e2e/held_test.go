package e2e

import (
	"context"
	"testing"

	"podium/board"
)

// TestHeldScoresApproveAndReject: scores that broke a board's fair-play
// rule wait on the console's held page (who, what, which rule, when); a
// person approves one, which then shows on the public page with its score,
// and rejects the other, which never does.
func TestHeldScoresApproveAndReject(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	twelve := int64(12)
	b := a.board(board.Board{ID: "arena", Title: "Arena", TieBreak: board.ByMember, Rules: &board.Rules{MaxValue: &twelve, OnBreak: board.RulesHold}},
		"ann", 10)
	for _, m := range []struct {
		member string
		v      float64
	}{{"bob", 15}, {"cat", 40}} {
		res, err := a.store.Submit(context.Background(), b.ID, board.Submission{Member: m.member, Score: m.v, Op: board.Set}, board.Author{Actor: "api:game-server"})
		if err != nil || !res.Held {
			t.Fatalf("%s: %+v %v", m.member, res, err)
		}
	}
	public := newPage(t)
	open(t, public, a.URL+"/b/arena", 200)
	waitLive(t, public)
	names := public.GetByTestId("name")
	must(t, expect.Locator(names).ToHaveText([]string{"ann"}))

	console := newPage(t)
	signIn(t, console, a, adminPassword)
	must(t, console.WaitForURL(a.URL+"/admin"))
	open(t, console, a.URL+"/admin/boards/arena", 200)
	must(t, console.GetByTestId("held-link").Click())
	must(t, console.WaitForURL(a.URL+"/admin/boards/arena/held"))
	rows := console.GetByTestId("held-row")
	must(t, expect.Locator(rows).ToHaveCount(2))
	bob := console.Locator(`tr[data-member="bob"]`)
	must(t, expect.Locator(bob).ToContainText("set 15"))
	must(t, expect.Locator(bob).ToContainText("by api:game-server"))
	must(t, expect.Locator(bob.GetByTestId("held-rule")).ToHaveText("max_value: a value of at most 12"))
	shoot(t, console, "console-held")

	must(t, bob.GetByTestId("held-approve").Click())
	must(t, expect.Locator(console.GetByTestId("flash")).ToHaveText("Approved: bob now has 15 (1st)."))
	must(t, expect.Locator(rows).ToHaveCount(1))
	must(t, expect.Locator(names).ToHaveText([]string{"bob", "ann"}))

	must(t, console.Locator(`tr[data-member="cat"]`).GetByTestId("held-reject").Click())
	must(t, expect.Locator(console.GetByTestId("flash")).ToHaveText("Rejected: cat's score of 40 was dropped."))
	must(t, expect.Locator(console.GetByTestId("held-empty")).ToBeVisible())
	open(t, public, a.URL+"/b/arena", 200)
	must(t, expect.Locator(names).ToHaveText([]string{"bob", "ann"}))

	open(t, console, a.URL+"/admin/audit?board=arena", 200)
	must(t, expect.Locator(console.Locator("main")).ToContainText("score.reject"))
	must(t, expect.Locator(console.Locator("main")).ToContainText("approved held write #1"))
}
