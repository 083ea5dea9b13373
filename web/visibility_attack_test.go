package web_test

// Attacks on private boards that must fail (found in a review of the
// change that made boards private).

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/archive"
	"podium/board"
	"podium/internal/webtest"
	"podium/redisstore"
	"podium/web/request"
)

// TestPrivateLiveSocketRefusesForeignOriginWithLinkCookie: with the default
// EMBED_ORIGINS=* the hub skips the WebSocket's Origin check ("public,
// read-only data"). A private board's socket is authorised by the share
// link's cookie, so any page whose request carries that cookie (a page of
// the same site, e.g. another subdomain: SameSite=Lax is per site, not per
// origin; or a browser without SameSite) reads the private board live:
// cross-site WebSocket hijacking. A socket opened with a link cookie must
// come from the site's own origin.
func TestPrivateLiveSocketRefusesForeignOriginWithLinkCookie(t *testing.T) {
	f := visibilityFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, token, err := f.Admin.Links.Create(ctx, secretID, f.MustBoard(t, secretID).Created, "class 4B", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	url := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?board=" + secretID + "&period=all"
	hdr := http.Header{"Cookie": {request.LinkCookie(secretID) + "=" + token}, "Origin": {"https://evil.school.example"}}
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		return // refused: good
	}
	defer ws.CloseNow()
	_, first, err := ws.Read(ctx)
	if err == nil && strings.Contains(string(first), secretName) {
		t.Errorf("a page of https://evil.school.example reads the private board through the victim's link cookie: %.120s", first)
	}
}

// TestPrivateColdRefusalCostsLikeAMiss: the gate's refusal must cost what an
// unknown board's miss costs. With the definition cache cold (older than
// its 1 s TTL), a refused private board costs two HGETALLs (Board, then
// Reread), an unknown id one: a timing class an attacker can sample once a
// second per candidate id.
func TestPrivateColdRefusalCostsLikeAMiss(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: secretID, Title: secretText, Visibility: board.Private}, map[string]float64{"zelda": 1})
	ctx := context.Background()
	hgetalls := func(path string) int {
		time.Sleep(1100 * time.Millisecond) // past the definition TTL
		if err := f.Redis.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if res, _ := f.Get(path); res.StatusCode != http.StatusNotFound {
			t.Fatalf("%s: %d", path, res.StatusCode)
		}
		info, err := f.Redis.Info(ctx, "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`cmdstat_hgetall:calls=(\d+)`).FindStringSubmatch(info)
		if m == nil {
			return 0
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	private, unknown := hgetalls("/b/"+secretID), hgetalls("/b/"+ghostID)
	if private != unknown {
		t.Errorf("refused private board, cold cache: %d HGETALL; unknown board: %d", private, unknown)
	}
}

// TestPrivateListingsWithAKeyAreNotCacheable: the home page, /tv and the
// API's list with a key show the private boards it may read, but are not
// marked private, no-store as every other answer about a private board is.
func TestPrivateListingsWithAKeyAreNotCacheable(t *testing.T) {
	f := visibilityFixture(t)
	key := f.Key("reader", secretID)
	for _, path := range []string{"/", "/tv", "/api/v1/boards"} {
		res, body := f.Get(path, "Authorization", "Bearer "+key)
		if !strings.Contains(body, secretText) {
			t.Fatalf("%s with the board's key does not list it", path)
		}
		if !strings.Contains(res.Header.Get("Cache-Control"), "no-store") {
			t.Errorf("%s lists a private board with Cache-Control %q", path, res.Header.Get("Cache-Control"))
		}
	}
}

// TestPrivateShareLinkOfAnEarlierBoard: docs/sharing.md says a link of an
// earlier board of the same id "opens nothing: /s/... then says only that
// the link does not work". /s/ does not compare the link's Since with the
// board's creation: it sets the cookie and redirects (the cookie then reads
// nothing). Reached when RevokeAll failed at the deletion (only logged).
func TestPrivateShareLinkOfAnEarlierBoard(t *testing.T) {
	f := visibilityFixture(t)
	ctx := context.Background()
	_, token, err := f.Admin.Links.Create(ctx, secretID, f.MustBoard(t, secretID).Created, "class 4B", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Store.DeleteBoard(ctx, secretID); err != nil { // as if RevokeAll then failed
		t.Fatal(err)
	}
	f.Board(board.Board{ID: secretID, Title: "Made again", Visibility: board.Private}, nil)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(f.URL + "/s/" + token)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("/s/ with a link of the earlier board: %d to %q, Set-Cookie %v", res.StatusCode, res.Header.Get("Location"), res.Header.Get("Set-Cookie") != "")
	}
}

// TestPrivateArchiveOfADeletedPrivateBoard: the SQL archive is keyed by the
// board's id only and deleting a board leaves it. A private board deleted
// (in the console or the API) and a public one made under the same id
// shows the private board's past winners and member histories to anyone.
func TestPrivateArchiveOfADeletedPrivateBoard(t *testing.T) {
	ctx := context.Background()
	f := webtest.New(t, webtest.Archive(), webtest.Clock(time.Now), webtest.StoreOptions(redisstore.WithDefinitionTTL(0)))
	lastWeek := time.Now().UTC().AddDate(0, 0, -14)
	past := redisstore.NewStore(f.Redis, redisstore.WithClock(func() time.Time { return lastWeek }))
	def := board.Board{ID: secretID, Title: secretText, Visibility: board.Private, Periods: []board.Kind{board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly}
	if _, err := past.CreateBoard(ctx, def); err != nil {
		t.Fatal(err)
	}
	if _, err := past.Submit(ctx, secretID, board.Submission{Member: "zelda", Name: secretName, Score: 4242, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := (&archive.Archiver{Store: f.Store, DB: f.App.Archive, Log: webtest.Quiet}).Due(ctx); err != nil {
		t.Fatal(err)
	}
	if res, body := f.Get("/b/" + secretID + "/winners"); res.StatusCode != http.StatusNotFound || strings.Contains(body, secretName) {
		t.Fatalf("private board's winners: %d", res.StatusCode)
	}
	// The admin deletes it (through the API, as the console would) and
	// later makes a public board under the same id.
	if code, out, _ := f.Call("DELETE", "/api/v1/boards/"+secretID, f.Key("admin", ""), ""); code != http.StatusNoContent {
		t.Fatalf("delete: %d %v", code, out)
	}
	if _, err := f.Store.CreateBoard(ctx, board.Board{ID: secretID, Title: "Open Day", Periods: []board.Kind{board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly}); err != nil {
		t.Fatal(err)
	}
	at := def.Current(board.Weekly, lastWeek).Key
	for _, path := range []string{"/b/" + secretID + "/winners", "/b/" + secretID + "/m/zelda", "/b/" + secretID + "?period=week&at=" + at, "/api/v1/boards/" + secretID + "/entries?period=week&at=" + at} {
		if _, body := f.Get(path); strings.Contains(body, secretName) || strings.Contains(body, "4,242") || strings.Contains(body, "4242") {
			t.Errorf("%s of the new public board shows the deleted private board's archive: %s", path, webtest.Excerpt(body))
		}
	}
}
