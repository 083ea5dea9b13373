package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/board"
	"podium/internal/webtest"
	"podium/web/request"
)

// The private board of these tests and an unknown id of the same length:
// a refusal must read exactly as the unknown board's answer does.
const (
	secretID   = "secret"
	ghostID    = "ghosty"
	secretName = "Zelda Secret"
	secretText = "Hidden Board"
)

// visibilityFixture is a server with a public, an unlisted and a private
// board, the private one holding a named member in a team.
func visibilityFixture(t *testing.T) *webtest.Server {
	t.Helper()
	return visibilityFixtureWith(t)
}

// visibilityFixtureWith is visibilityFixture with more of webtest's options.
func visibilityFixtureWith(t *testing.T, opts ...webtest.Option) *webtest.Server {
	t.Helper()
	f := webtest.New(t, append([]webtest.Option{webtest.Archive(), webtest.Live()}, opts...)...)
	ctx := context.Background()
	f.Board(board.Board{ID: "open", Title: "Open Board"}, map[string]float64{"ann": 5})
	f.Board(board.Board{ID: "quiet", Title: "Quiet Board", Visibility: board.Unlisted}, map[string]float64{"bob": 6})
	f.Board(board.Board{ID: secretID, Title: secretText, Visibility: board.Private, Teams: board.TeamsSum, Periods: []board.Kind{board.Weekly, board.AllTime},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Low", "High"}, Promote: 1, Relegate: 1}}, nil)
	if _, err := f.Store.Submit(ctx, secretID, board.Submission{Member: "zelda", Name: secretName, Score: 4242, Op: board.Set, Team: "red"}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	return f
}

// boardRoutes are the router's GET routes that read one board, as paths
// for board id: every route with a :board parameter, and /live and /tv,
// which name it in the query. A route the test does not know how to fill
// fails the test, so a new route cannot go unchecked.
func boardRoutes(t *testing.T, f *webtest.Server, id string) []string {
	t.Helper()
	var out []string
	for _, r := range f.App.Server.Routes() {
		if r.Method != http.MethodGet {
			continue
		}
		p := r.Path
		switch {
		case p == "/live":
			out = append(out, "/live?board="+id+"&period=all")
			continue
		case p == "/tv":
			out = append(out, "/tv?boards="+id)
			continue
		case !strings.Contains(p, ":board") || strings.HasPrefix(p, "/admin"):
			continue
		case strings.Contains(p, "/hooks"): // webhooks: an API key's, never public
			continue
		}
		filled := strings.NewReplacer(":board", id, ":member", "zelda", ":team", "red", ":tier", "0", ":cohort", "1").Replace(p)
		if strings.Contains(filled, ":") {
			t.Fatalf("route %s has a parameter the gate's test cannot fill: teach boardRoutes about it", p)
		}
		out = append(out, filled)
	}
	if len(out) < 12 {
		t.Fatalf("only %d board routes found: %v", len(out), out)
	}
	return out
}

// TestEveryRouteAsksTheGate: every route that reads a board answers for a
// private board, without access, exactly as for an unknown board (status,
// body, the headers a cache or a script could tell apart), and shows
// nothing of it; with a share link's cookie or an API key of the board,
// it answers.
func TestEveryRouteAsksTheGate(t *testing.T) {
	f := visibilityFixture(t)
	ctx := context.Background()
	_, token, err := f.Admin.Links.Create(ctx, secretID, f.MustBoard(t, secretID).Created, "class 4B", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	_, otherToken, err := f.Admin.Links.Create(ctx, "open", f.MustBoard(t, "open").Created, "other board's link", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	key, otherKey := f.Key("writer", secretID), f.Key("other", "open")
	_, readKey, err := f.Admin.Keys.Create(ctx, "reader", secretID, true)
	if err != nil {
		t.Fatal(err)
	}
	cookie := func(tok string) string { return request.LinkCookie(secretID) + "=" + tok }
	personal := personalLinks(t, f, "zelda", "otto", "revoked")
	sessions := consoleSessions(t, f)
	for _, path := range boardRoutes(t, f, secretID) {
		otherMembersLink(t, f, path, cookie(personal["otto"]))
		ghost := strings.ReplaceAll(path, secretID, ghostID)
		want, wantBody := f.Get(ghost)
		refused := []struct {
			name string
			hdr  []string
		}{
			{"no access", nil},
			{"another board's link", []string{"Cookie", cookie(otherToken)}},
			{"a made-up link", []string{"Cookie", cookie("pvl_abcdefgh_" + strings.Repeat("x", 43))}},
			{"another board's key", []string{"Authorization", "Bearer " + otherKey}},
			{"a made-up key", []string{"Authorization", "Bearer pdm_nope_nope"}},
			{"a board user's session without a role on it", sessions["stranger"]},
			{"an organisation's sign-in the allow-list does not admit", sessions["outsider"]},
			{"a made-up session", []string{"Cookie", request.SessionCookie + "=" + strings.Repeat("x", 43)}},
			{"a revoked personal link", []string{"Cookie", cookie(personal["revoked"])}},
		}
		if strings.HasPrefix(path, "/api/") { // the API reads keys, never the console's cookie
			for _, u := range []string{"viewer", "root", "member of the organisation"} {
				refused = append(refused, struct {
					name string
					hdr  []string
				}{u + "'s session on the API", sessions[u]})
			}
		}
		for _, cred := range refused {
			res, body := f.Get(path, cred.hdr...)
			if res.StatusCode != want.StatusCode || strings.ReplaceAll(body, secretID, ghostID) != wantBody {
				t.Errorf("%s with %s: %d %q, want as unknown %d %q", path, cred.name, res.StatusCode, webtest.Excerpt(body), want.StatusCode, webtest.Excerpt(wantBody))
			}
			for _, h := range []string{"Content-Type", "Cache-Control", "X-Robots-Tag", "Content-Security-Policy"} {
				if res.Header.Get(h) != want.Header.Get(h) {
					t.Errorf("%s with %s: %s %q, unknown board's %q", path, cred.name, h, res.Header.Get(h), want.Header.Get(h))
				}
			}
			for _, leak := range []string{secretName, secretText, "4242"} {
				if strings.Contains(body, leak) {
					t.Errorf("%s with %s shows %q", path, cred.name, leak)
				}
			}
		}
		withCreds := []struct {
			name string
			hdr  []string
		}{{"its share link", []string{"Cookie", cookie(token)}}, {"its member's personal link", []string{"Cookie", cookie(personal["zelda"])}}}
		if !strings.HasPrefix(path, "/api/") {
			for _, u := range []string{"viewer", "scorekeeper", "owner", "root", "member of the organisation"} {
				withCreds = append(withCreds, struct {
					name string
					hdr  []string
				}{u + "'s session", sessions[u]})
			}
		}
		if strings.HasPrefix(path, "/api/") {
			withCreds = append(withCreds, struct {
				name string
				hdr  []string
			}{"its API key", []string{"Authorization", "Bearer " + key}}, struct {
				name string
				hdr  []string
			}{"its read-only API key", []string{"Authorization", "Bearer " + readKey}})
		}
		for _, cred := range withCreds {
			res, body := f.Get(path, cred.hdr...)
			if res.StatusCode == http.StatusNotFound {
				t.Errorf("%s with %s: 404 %q", path, cred.name, webtest.Excerpt(body))
				continue
			}
			if res.StatusCode < 300 && !strings.Contains(res.Header.Get("Cache-Control"), "no-store") {
				t.Errorf("%s with %s: Cache-Control %q, want private, no-store", path, cred.name, res.Header.Get("Cache-Control"))
			}
		}
	}
}

// TestListingsShowPublicBoardsOnly: the home page, the wall display's
// default and the API's list of boards show public boards, never unlisted
// or private ones; an API key lists the boards it may act on.
func TestListingsShowPublicBoardsOnly(t *testing.T) {
	f := visibilityFixture(t)
	for _, path := range []string{"/", "/tv", "/api/v1/boards"} {
		_, body := f.Get(path)
		if !strings.Contains(body, "Open Board") {
			t.Errorf("%s does not list the public board: %q", path, webtest.Excerpt(body))
		}
		for _, hidden := range []string{"Quiet Board", secretText, secretName} {
			if strings.Contains(body, hidden) {
				t.Errorf("%s lists %q", path, hidden)
			}
		}
	}
	_, body := f.Get("/api/v1/boards", "Authorization", "Bearer "+f.Key("reader", secretID))
	if !strings.Contains(body, secretText) || strings.Contains(body, "Quiet Board") {
		t.Errorf("a key of the private board lists %q", webtest.Excerpt(body))
	}
	// A signed-in viewer of the private board finds it on the home page;
	// a board user of another board does not.
	sessions := consoleSessions(t, f)
	if res, body := f.Get("/", sessions["viewer"]...); !strings.Contains(body, secretText) || strings.Contains(body, "Quiet Board") ||
		res.Header.Get("Cache-Control") != "private, no-store" {
		t.Errorf("the home page of a viewer of the private board: %q, Cache-Control %q", webtest.Excerpt(body), res.Header.Get("Cache-Control"))
	}
	if _, body := f.Get("/", sessions["stranger"]...); strings.Contains(body, secretText) {
		t.Errorf("the home page of a board user of another board lists the private board")
	}
	// Unlisted: readable by its address, marked noindex.
	res, body := f.Get("/b/quiet")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "bob") || res.Header.Get("X-Robots-Tag") != "noindex" ||
		!strings.Contains(body, `<meta name="robots" content="noindex">`) {
		t.Errorf("unlisted board: %d %s, X-Robots-Tag %q", res.StatusCode, webtest.Excerpt(body), res.Header.Get("X-Robots-Tag"))
	}
}

// TestShareLinkOpensAndRevokes: a share link leaves a cookie and goes to
// its board; revoked, it and the cookie it left read nothing; a made-up or
// revoked link's page says only that the link does not work.
func TestShareLinkOpensAndRevokes(t *testing.T) {
	f := visibilityFixture(t)
	ctx := context.Background()
	link, token, err := f.Admin.Links.Create(ctx, secretID, f.MustBoard(t, secretID).Created, "class 4B", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(f.URL + "/s/" + token)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/b/"+secretID || res.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("share link: %d to %q, Referrer-Policy %q", res.StatusCode, res.Header.Get("Location"), res.Header.Get("Referrer-Policy"))
	}
	var ck *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == request.LinkCookie(secretID) {
			ck = c
		}
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Value != token {
		t.Fatalf("share link cookie: %+v", ck)
	}
	res2, body := f.Get("/b/"+secretID, "Cookie", ck.Name+"="+ck.Value)
	if res2.StatusCode != http.StatusOK || !strings.Contains(body, secretName) {
		t.Fatalf("with the link's cookie: %d %s", res2.StatusCode, webtest.Excerpt(body))
	}
	if _, err := f.Admin.Links.Revoke(ctx, secretID, link.ID); err != nil {
		t.Fatal(err)
	}
	if res, body := f.Get("/b/"+secretID, "Cookie", ck.Name+"="+ck.Value); res.StatusCode != http.StatusNotFound || strings.Contains(body, secretName) {
		t.Errorf("revoked link's cookie: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	for _, tok := range []string{token, "pvl_abcdefgh_nope", "nonsense"} {
		res, body := f.Get("/s/" + tok)
		if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "This link does not work") || strings.Contains(body, secretID) {
			t.Errorf("/s/%s: %d %s", tok, res.StatusCode, webtest.Excerpt(body))
		}
	}
}

// TestLiveSocketClosesWhenItsLinkIsRevoked: a live socket opened with a
// share link ends (1008) once the link is revoked; without access no
// socket opens at all.
func TestLiveSocketClosesWhenItsLinkIsRevoked(t *testing.T) {
	f := visibilityFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	link, token, err := f.Admin.Links.Create(ctx, secretID, f.MustBoard(t, secretID).Created, "wall", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	url := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?board=" + secretID + "&period=all"
	if _, res, err := websocket.Dial(ctx, url, nil); err == nil || res == nil || res.StatusCode != http.StatusNotFound {
		t.Fatalf("a socket without access: err %v, answer %v", err, res)
	}
	hdr := http.Header{"Cookie": {request.LinkCookie(secretID) + "=" + token}}
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	_, first, err := ws.Read(ctx)
	if err != nil || !strings.Contains(string(first), secretName) {
		t.Fatalf("first frame: %v %q", err, first)
	}
	if _, err := f.Admin.Links.Revoke(ctx, secretID, link.ID); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	for {
		_, _, err := ws.Read(ctx) // frames may still come until the guard looks again
		if err == nil {
			continue
		}
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Fatalf("socket ended with %v, want 1008 (access revoked)", err)
		}
		break
	}
	t.Logf("socket closed %v after the revocation", time.Since(revoked).Round(time.Millisecond))
}

// TestReadOnlyKeyWritesNothing: a read-only key reads a private board and
// is refused (403 read_only_key) on every write, which changes nothing.
func TestReadOnlyKeyWritesNothing(t *testing.T) {
	f := visibilityFixture(t)
	_, readKey, err := f.Admin.Keys.Create(context.Background(), "site", "", true)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, _ := f.Call("GET", "/api/v1/boards/"+secretID+"/entries", readKey, ""); code != http.StatusOK {
		t.Fatalf("read with a read-only key: %d %v", code, out)
	}
	for _, w := range []struct{ method, path, body string }{
		{"POST", "/api/v1/boards/" + secretID + "/scores", `{"member":"zelda","score":1}`},
		{"DELETE", "/api/v1/boards/" + secretID + "/members/zelda", ""},
		{"PUT", "/api/v1/boards/" + secretID + "/freeze", `{}`},
		{"POST", "/api/v1/boards", `{"id":"made","title":"Made"}`},
		{"DELETE", "/api/v1/boards/" + secretID, ""},
	} {
		code, out, _ := f.Call(w.method, w.path, readKey, w.body)
		if code != http.StatusForbidden || webtest.ErrCode(out) != "read_only_key" {
			t.Errorf("%s %s with a read-only key: %d %v", w.method, w.path, code, out)
		}
	}
	if _, out, _ := f.Call("GET", "/api/v1/boards/"+secretID+"/members/zelda", readKey, ""); !strings.Contains(fmt.Sprint(out), "4242") {
		t.Errorf("zelda's score changed: %v", out)
	}
}
