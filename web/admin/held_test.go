package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/internal/webtest"
)

// TestConsoleHeldScores: a scorekeeper lists a board's held scores (who,
// what, which rule, when) and approves or rejects them; a viewer may not;
// a score decided already says so; the board page links the queue.
func TestConsoleHeldScores(t *testing.T) {
	f := webtest.New(t)
	ten := int64(10)
	b := f.Board(board.Board{ID: "cup", Title: "Cup", Rules: &board.Rules{MaxValue: &ten, OnBreak: board.RulesHold}}, nil)
	ctx := context.Background()
	for _, m := range []string{"ann", "bob"} {
		if res, err := f.Store.Submit(ctx, "cup", board.Submission{Member: m, Score: 11}, board.Author{Actor: "api:game"}); err != nil || !res.Held {
			t.Fatalf("%s: %+v %v", m, res, err)
		}
	}
	keeper := signedInAs(t, f, "keeper", access.Scorekeeper, b)
	if _, page := keeper.Get("/admin/boards/cup"); !strings.Contains(page, `data-testid="held-link"`) {
		t.Fatalf("the board page does not link the held scores: %s", webtest.Excerpt(page))
	}
	_, page := keeper.Get("/admin/boards/cup/held")
	if strings.Count(page, `data-testid="held-row"`) != 2 || !strings.Contains(page, "max_value: a value of at most 10") ||
		!strings.Contains(page, "incr 11") || !strings.Contains(page, "by api:game") {
		t.Fatalf("held page: %s", webtest.Excerpt(page))
	}
	viewer := signedInAs(t, f, "viewer", access.Viewer, b)
	if res, _ := viewer.Post("/admin/boards/cup/held/1/approve", url.Values{"csrf": {viewer.CSRF}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a viewer approving: %d", res.StatusCode)
	}
	if msg := keeper.FlashAfter(keeper.Post("/admin/boards/cup/held/1/approve", url.Values{"csrf": {keeper.CSRF}})); msg != "Approved: ann now has 11 (1st)." {
		t.Fatalf("approve: %q", msg)
	}
	if msg := keeper.FlashAfter(keeper.Post("/admin/boards/cup/held/2/reject", url.Values{"csrf": {keeper.CSRF}})); msg != "Rejected: bob's score of 11 was dropped." {
		t.Fatalf("reject: %q", msg)
	}
	if msg := keeper.FlashAfter(keeper.Post("/admin/boards/cup/held/2/approve", url.Values{"csrf": {keeper.CSRF}})); !strings.Contains(msg, "no longer held") {
		t.Fatalf("approving a rejected score: %q", msg)
	}
	if _, page := keeper.Get("/admin/boards/cup/held"); !strings.Contains(page, `data-testid="held-empty"`) {
		t.Fatalf("after both: %s", webtest.Excerpt(page))
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/cup/entries", "", ""); status != 200 || out["total"] != 1.0 {
		t.Fatalf("entries: %v", out)
	}
	entries, _, err := f.Admin.Audit.List(ctx, audit.Filter{Board: "cup"}, "", 20)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if strings.Contains(e.Actor, "keeper") {
			got = append(got, e.Action+" "+e.Member)
		}
	}
	if strings.Join(got, ", ") != "score.reject bob, score.incr ann" {
		t.Fatalf("audited: %v", got)
	}
}

// TestConsoleScoreOnASessionsBoard: a person's adjustment in the console
// needs no run's token, and editing the board in the console keeps its
// sessions (the form has no fields for them).
func TestConsoleScoreOnASessionsBoard(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "runs", Title: "Runs", Sessions: &board.Sessions{MinSeconds: 10, MaxSeconds: 60}}, nil)
	a := f.SignedIn()
	a.Get("/admin/boards/runs")
	if msg := a.FlashAfter(a.Post("/admin/boards/runs/score", url.Values{"member": {"ann"}, "op": {"set"}, "value": {"7"}, "reason": {"fix"}, "csrf": {a.CSRF}}, "Origin", f.URL)); !strings.Contains(msg, "ann now has 7") {
		t.Fatalf("a console score on a sessions board: %q", msg)
	}
	form := url.Values{"csrf": {a.CSRF}, "title": {"Runs 2"}, "periods": {"week", "all"}, "default_period": {"week"}, "time_zone": {"UTC"},
		"rank_style": {"competition"}, "retention": {"2"}}
	if msg := a.FlashAfter(a.Post("/admin/boards/runs/edit", form)); msg != "Board saved." {
		t.Fatalf("edit: %q", msg)
	}
	if s := f.MustBoard(t, "runs").Sessions; s == nil || s.MaxSeconds != 60 {
		t.Fatalf("sessions after a console edit: %+v", s)
	}
}
