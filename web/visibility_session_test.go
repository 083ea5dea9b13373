package web_test

import (
	"net/http"
	"strings"
	"testing"

	"podium/internal/webtest"
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
