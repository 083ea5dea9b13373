package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/access"
	"podium/board"
	"podium/internal/webtest"
	"podium/web/request"
)

// TestWallDisplayDefaultIsPublicOnly: the wall display's default (every
// board) is for a room, not for the signed-in user alone: a site admin's or
// a viewer's session does not put a private board on it. Named, the board
// shows to those who may read it.
func TestWallDisplayDefaultIsPublicOnly(t *testing.T) {
	f := visibilityFixture(t)
	sessions := consoleSessions(t, f)
	for _, who := range []string{"root", "viewer", "member of the organisation"} {
		_, body := f.Get("/tv", sessions[who]...)
		if !strings.Contains(body, "Open Board") || strings.Contains(body, secretText) || strings.Contains(body, secretName) {
			t.Errorf("/tv as %s: %q, want the public boards only", who, webtest.Excerpt(body))
		}
		if res, body := f.Get("/tv?boards="+secretID, sessions[who]...); res.StatusCode != http.StatusOK || !strings.Contains(body, secretText) {
			t.Errorf("/tv?boards=%s as %s: %d %q", secretID, who, res.StatusCode, webtest.Excerpt(body))
		}
	}
}

// consoleSessions signs in, as request headers, a site admin (root), a
// board user of each role on the private board, and a board user with a
// role on the public board only (stranger).
func consoleSessions(t *testing.T, f *webtest.Server) map[string][]string {
	t.Helper()
	ctx := t.Context()
	out := map[string][]string{}
	secret, open := f.MustBoard(t, secretID), f.MustBoard(t, "open")
	for _, u := range []struct {
		name  string
		role  access.Role
		board *board.Board
	}{{"root", access.NoRole, nil}, {"viewer", access.Viewer, secret}, {"scorekeeper", access.Scorekeeper, secret},
		{"owner", access.Owner, secret}, {"stranger", access.Owner, open}} {
		create := f.Admin.Accounts.CreateBoardUser
		if u.board == nil {
			create = f.Admin.Accounts.Create
		}
		if err := create(ctx, u.name, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
		if u.board != nil {
			if err := f.Admin.Grants.Set(ctx, u.name, u.board.ID, u.role, u.board.Created); err != nil {
				t.Fatal(err)
			}
		}
		token, err := f.Admin.Sessions.Create(ctx, u.name, "192.0.2.1", "test")
		if err != nil {
			t.Fatal(err)
		}
		out[u.name] = []string{"Cookie", request.SessionCookie + "=" + token}
	}
	// People signed in with the organisation, without accounts: one the
	// private board's allow-list admits, one it does not.
	if err := f.Admin.Allow.Set(ctx, secretID, secret.Created, access.Allow{Domains: []string{"school.example"}}); err != nil {
		t.Fatal(err)
	}
	for name, email := range map[string]string{"member of the organisation": "ann@school.example", "outsider": "bob@elsewhere.example"} {
		token, err := f.Admin.Sessions.CreateFor(ctx, access.OrgPrefix+email, access.Identity{Email: email}, "192.0.2.1", "test")
		if err != nil {
			t.Fatal(err)
		}
		out[name] = []string{"Cookie", request.SessionCookie + "=" + token}
	}
	return out
}

// TestLiveSocketClosesWhenItsRoleIsTakenAway: a signed-in viewer's socket
// on a private board ends within the guard's interval (and the role
// cache's half second) of the role being taken away on another replica.
func TestLiveSocketClosesWhenItsRoleIsTakenAway(t *testing.T) {
	f := visibilityFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sessions := consoleSessions(t, f)
	ws := dialLive(ctx, t, f, sessions["viewer"][1])
	defer ws.CloseNow()
	// Another replica's Grants: this server's cache does not hear of it.
	if _, err := access.NewGrants(f.Redis).Remove(ctx, "viewer", secretID); err != nil {
		t.Fatal(err)
	}
	waitClosedByGuard(ctx, t, ws)
}

// dialLive opens the private board's live socket with cookie and reads its
// first frame, which must show the board.
func dialLive(ctx context.Context, t *testing.T, f *webtest.Server, cookie string) *websocket.Conn {
	t.Helper()
	url := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?board=" + secretID + "&period=all"
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Cookie": {cookie}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, first, err := ws.Read(ctx); err != nil || !strings.Contains(string(first), secretName) {
		ws.CloseNow()
		t.Fatalf("first frame: %v %q", err, first)
	}
	return ws
}

// waitClosedByGuard reads frames until the socket ends, which must be the
// guard's 1008 (access taken away).
func waitClosedByGuard(ctx context.Context, t *testing.T, ws *websocket.Conn) {
	t.Helper()
	for {
		_, _, err := ws.Read(ctx) // frames may still come until the guard looks again
		if err == nil {
			continue
		}
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Fatalf("socket ended with %v, want 1008 (access taken away)", err)
		}
		return
	}
}
