package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/board"
	"podium/web/request"
)

// TestLivePersonalLinkSocket: a socket opened with a personal link, on its
// member's around-me, gets frames with its member whole and the top as
// pseudonyms, never the hidden pupils; another pupil's around-me is
// refused before any upgrade; revoking the link closes the socket (1008)
// within about a second.
func TestLivePersonalLinkSocket(t *testing.T) {
	f := classFixture(t, board.Private)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	link, token, err := f.Admin.Links.CreatePersonal(ctx, classID, f.MustBoard(t, classID).Created, "zz-dan", "Daniel Dodo", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	base := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?board=" + classID + "&period=all&radius=3&member="
	hdr := http.Header{"Cookie": {request.LinkCookie(classID) + "=" + token}}
	if _, res, err := websocket.Dial(ctx, base+"zz-cat", &websocket.DialOptions{HTTPHeader: hdr}); err == nil || res == nil || res.StatusCode != http.StatusNotFound {
		t.Fatalf("another pupil's around-me: err %v, answer %v", err, res)
	}
	ws, _, err := websocket.Dial(ctx, base+"zz-dan", &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	_, first, err := ws.Read(ctx)
	if err != nil || !strings.Contains(string(first), "Daniel Dodo") {
		t.Fatalf("first frame: %v %s", err, first)
	}
	// A write from outside: dan climbs, and the frame still hides the rest.
	if _, err := f.Store.Submit(ctx, classID, board.Submission{Member: "zz-eve", Score: 3500, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	frames := []string{string(first)}
	if _, next, err := ws.Read(ctx); err == nil {
		frames = append(frames, string(next))
	}
	for _, fr := range frames {
		for _, leak := range []string{"zz-cat", "Catherine", "zz-eve", "Evelyn", "Annabel", "zz-ann", "3500", "3031"} {
			if strings.Contains(fr, leak) {
				t.Errorf("a frame to dan's link shows %q: %s", leak, fr)
			}
		}
	}
	if _, err := f.Admin.Links.Revoke(ctx, classID, link.ID); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	for {
		if _, _, err := ws.Read(ctx); err != nil {
			if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
				t.Fatalf("socket ended with %v, want 1008 (link revoked)", err)
			}
			break
		}
	}
	t.Logf("socket closed %v after the revocation", time.Since(revoked).Round(time.Millisecond))
}

// TestLiveSharedViewsNeverMix: an anonymous reader's socket and a signed-in
// viewer's socket of the same page of a public board with a privacy mode
// are two views: the first never gets a hidden pupil, the second gets
// everyone by name.
func TestLiveSharedViewsNeverMix(t *testing.T) {
	f := classFixture(t, board.Public)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	url := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?board=" + classID + "&period=all&offset=0&limit=25"
	viewer := viewerOf(t, f)
	full, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{viewer[0]: {viewer[1]}}})
	if err != nil {
		t.Fatal(err)
	}
	defer full.CloseNow()
	anon, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.CloseNow()
	if _, fr, err := full.Read(ctx); err != nil || !strings.Contains(string(fr), "Evelyn Eaglet") {
		t.Fatalf("the viewer's first frame: %v %s", err, fr)
	}
	_, fr, err := anon.Read(ctx)
	if err != nil || !strings.Contains(string(fr), `"total":2`) {
		t.Fatalf("the anonymous first frame: %v %s", err, fr)
	}
	for _, leak := range hidden {
		if strings.Contains(string(fr), leak) {
			t.Errorf("the anonymous frame shows %q: %s", leak, fr)
		}
	}
}

// TestLiveSightKeptOnAPublicBoard: on a public board with a privacy mode,
// anyone may go on reading, so a socket's guard asks more than whether the
// board is readable: a personal link's own view closes (1008) once the link
// is revoked, and a viewer's whole view once the role is taken away.
func TestLiveSightKeptOnAPublicBoard(t *testing.T) {
	f := classFixture(t, board.Public)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	link, token, err := f.Admin.Links.CreatePersonal(ctx, classID, f.MustBoard(t, classID).Created, "zz-dan", "", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	base := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?board=" + classID + "&period=all"
	own, _, err := websocket.Dial(ctx, base+"&member=zz-dan&radius=2", &websocket.DialOptions{HTTPHeader: http.Header{"Cookie": {request.LinkCookie(classID) + "=" + token}}})
	if err != nil {
		t.Fatal(err)
	}
	defer own.CloseNow()
	viewer := viewerOf(t, f)
	whole, _, err := websocket.Dial(ctx, base+"&offset=0&limit=25", &websocket.DialOptions{HTTPHeader: http.Header{viewer[0]: {viewer[1]}}})
	if err != nil {
		t.Fatal(err)
	}
	defer whole.CloseNow()
	for _, ws := range []*websocket.Conn{own, whole} {
		if _, _, err := ws.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Admin.Links.Revoke(ctx, classID, link.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Admin.Grants.Remove(ctx, "teacher", classID); err != nil {
		t.Fatal(err)
	}
	for name, ws := range map[string]*websocket.Conn{"the personal link's": own, "the viewer's": whole} {
		for {
			if _, _, err := ws.Read(ctx); err != nil {
				if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
					t.Errorf("%s socket ended with %v, want 1008", name, err)
				}
				break
			}
		}
	}
}
