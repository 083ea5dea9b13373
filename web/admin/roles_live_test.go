package admin_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"podium/access"
	"podium/board"
	"podium/internal/webtest"
)

// TestViewerSeesTheFreezeAsThePublicDoes: while a board is frozen, its
// live standings are for those who may reveal them (scorekeepers, owners,
// site admins). A viewer's console shows what the public sees: a member
// who scored after the freeze has no standing yet, and the console's live
// socket of the standings is not theirs to open.
func TestViewerSeesTheFreezeAsThePublicDoes(t *testing.T) {
	f := webtest.New(t)
	ctx := t.Context()
	b := f.Board(board.Board{ID: "quiz", Title: "Quiz", Visibility: board.Private}, map[string]float64{"ann": 10})
	viewer := signedInAs(t, f, "viewer", access.Viewer, b)
	keeper := signedInAs(t, f, "keeper", access.Scorekeeper, b)
	if _, err := f.Store.Freeze(ctx, b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Store.Submit(ctx, b.ID, board.Submission{Member: "cat", Score: 50, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, body := keeper.Get("/admin/boards/quiz?member=cat"); !strings.Contains(body, `data-testid="standing-score">50<`) {
		t.Errorf("the scorekeeper does not see the live standing of cat: %q", webtest.Excerpt(body))
	}
	if _, body := viewer.Get("/admin/boards/quiz?member=cat"); strings.Contains(body, `data-testid="standing-score"`) {
		t.Errorf("a viewer sees a standing made after the freeze: %q", webtest.Excerpt(body))
	}
	if res, body := viewer.Get("/admin/boards/quiz/live?board=quiz"); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "Not allowed") {
		t.Errorf("a viewer opens the console's live standings: %d %q", res.StatusCode, webtest.Excerpt(body))
	}
}
