package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/access"
	"podium/board"
	"podium/internal/webtest"
	"podium/web/request"
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

// TestConsoleLiveSocketEndsWithItsAccess: the console's live socket of a
// board's standings (frozen or not) ends (1008) within about a second of
// the access it was opened with going away: the role taken away on another
// replica, the session ended, the user made a board user without a role.
func TestConsoleLiveSocketEndsWithItsAccess(t *testing.T) {
	f := webtest.New(t, webtest.Live())
	b := f.Board(board.Board{ID: "quiz", Title: "Quiz", Visibility: board.Private}, map[string]float64{"ann": 10})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	keeper := signedInAs(t, f, "keeper", access.Scorekeeper, b)
	ws := dialConsoleLive(ctx, t, f, keeper)
	if _, err := access.NewGrants(f.Redis).Remove(ctx, "keeper", b.ID); err != nil { // another replica's
		t.Fatal(err)
	}
	waitRevoked(ctx, t, ws, "the role taken away")

	other := signedInAs(t, f, "other", access.Owner, b)
	ws = dialConsoleLive(ctx, t, f, other)
	if _, err := f.Admin.Sessions.DeleteOthers(ctx, "other", ""); err != nil {
		t.Fatal(err)
	}
	waitRevoked(ctx, t, ws, "the session ended")

	root := signedInAs(t, f, "root", access.NoRole, nil)
	if err := f.Admin.Accounts.Create(ctx, "spare", "correct horse battery"); err != nil { // so root is not the last site admin
		t.Fatal(err)
	}
	ws = dialConsoleLive(ctx, t, f, root)
	if err := f.Admin.Accounts.SetSiteAdmin(ctx, "root", false); err != nil {
		t.Fatal(err)
	}
	waitRevoked(ctx, t, ws, "a site admin made a board user")
}

// dialConsoleLive opens the board quiz's console live socket with a's
// session cookie and reads its first frame.
func dialConsoleLive(ctx context.Context, t *testing.T, f *webtest.Server, a *webtest.Browser) *websocket.Conn {
	t.Helper()
	base, _ := url.Parse(f.URL + "/admin/")
	var cookie string
	for _, ck := range a.HTTP.Jar.Cookies(base) {
		if ck.Name == request.SessionCookie {
			cookie = ck.Name + "=" + ck.Value
		}
	}
	u := "ws" + strings.TrimPrefix(f.URL, "http") + "/admin/boards/quiz/live?board=quiz"
	ws, res, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: http.Header{"Cookie": {cookie}}})
	if err != nil {
		t.Fatalf("console live socket: %v (%v)", err, res)
	}
	t.Cleanup(func() { ws.CloseNow() })
	if _, _, err := ws.Read(ctx); err != nil {
		t.Fatalf("first frame: %v", err)
	}
	return ws
}

// waitRevoked reads frames until the socket ends, which must be a 1008
// (access revoked) within two seconds.
func waitRevoked(ctx context.Context, t *testing.T, ws *websocket.Conn, after string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	for {
		_, _, err := ws.Read(ctx)
		if err == nil {
			continue
		}
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Errorf("after %s the console's socket: %v, want closed with 1008 within 2 s", after, err)
		}
		return
	}
}
