package api_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
	"podium/web/api/client"
)

// memberFixture is a server with an archive and a board where zoe-quill
// ("Zoe Quill") is in team red, and a client with a key of the board.
func memberFixture(t *testing.T) (*webtest.Server, *client.ClientWithResponses, string) {
	t.Helper()
	f := webtest.New(t, webtest.Archive())
	f.Board(board.Board{ID: "club", Title: "Club", Periods: []board.Kind{board.Weekly, board.AllTime, board.Last7d}, Teams: board.TeamsSum},
		map[string]float64{"amy": 9, "ben": 4})
	if _, err := f.Store.Submit(context.Background(), "club", board.Submission{Member: "zoe-quill", Name: "Zoe Quill", Team: "red", Score: 7, Op: board.Set},
		board.Author{Actor: "test", Reason: "Zoe Quill joins"}); err != nil {
		t.Fatal(err)
	}
	key := f.Key("club bot", "club")
	c, err := client.NewClientWithResponses(f.URL+"/api/v1", client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+key)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return f, c, key
}

// TestMemberDataDownload: the generated client reads a member's data: a
// download with a sensible name, never cached, holding its standings,
// team, name and audit entries.
func TestMemberDataDownload(t *testing.T) {
	f, c, _ := memberFixture(t)
	res, err := c.GetMemberDataWithResponse(context.Background(), "club", "zoe-quill")
	if err != nil || res.JSON200 == nil {
		t.Fatalf("data: %v %d %s", err, res.StatusCode(), res.Body)
	}
	d := res.JSON200
	if d.Member != "zoe-quill" || d.Name == nil || *d.Name != "Zoe Quill" || d.Team == nil || *d.Team != "red" || len(d.Periods) != 3 || len(d.Audit) != 2 || d.Limit != 10_000 {
		t.Errorf("data: %s", res.Body)
	}
	h := res.HTTPResponse.Header
	if !regexp.MustCompile(`^attachment; filename="podium-club-zoe-quill-\d{4}-\d\d-\d\d\.json"$`).MatchString(h.Get("Content-Disposition")) || h.Get("Cache-Control") != "private, no-store" {
		t.Errorf("headers: %q %q", h.Get("Content-Disposition"), h.Get("Cache-Control"))
	}
	status, out, _ := f.Call("GET", "/api/v1/boards/club/members/nobody/data", f.Key("other", "club"), "")
	if e, _ := out["error"].(map[string]any); status != 404 || webtest.ErrCode(out) != "member_not_found" || !strings.Contains(e["message"].(string), "never there, or it has been erased") {
		t.Errorf("an unknown member: %d %v", status, out)
	}
}

// TestEraseOverTheAPI: an erasure leaves nothing of the member on the
// API's reads, exports and pages; bad input writes nothing; a second
// erasure answers that it was done.
func TestEraseOverTheAPI(t *testing.T) {
	f, c, key := memberFixture(t)
	ctx := context.Background()
	for _, bad := range []struct{ body, code, field string }{
		{`{"mode":"shred"}`, "invalid", "mode"},
		{`{"mode":"remove","why":"asked"}`, "bad_json", ""},
	} {
		status, out, _ := f.Call("POST", "/api/v1/boards/club/members/zoe-quill/erase", key, bad.body)
		if webtest.ErrCode(out) != bad.code || webtest.ErrField(out) != bad.field || status/100 != 4 {
			t.Errorf("%s: %d %v", bad.body, status, out)
		}
	}
	if status, _, _ := f.Call("GET", "/api/v1/boards/club/members/zoe-quill", "", ""); status != 200 {
		t.Fatalf("a refused erasure changed the member: %d", status)
	}
	// A personal link of the member (it names the member, and a name):
	// the erasure revokes it, and no key of the link is left.
	club := f.MustBoard(t, "club")
	link, linkToken, err := f.Admin.Links.CreatePersonal(ctx, "club", club.Created, "zoe-quill", "Zoe Quill", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	mode := client.EraseMemberJSONBodyMode("remove")
	res, err := c.EraseMemberWithResponse(ctx, "club", "zoe-quill", client.EraseMemberJSONRequestBody{Mode: &mode})
	if err != nil || res.JSON200 == nil {
		t.Fatalf("erase: %v %d %s", err, res.StatusCode(), res.Body)
	}
	if e := res.JSON200; e.Status != "erased" || e.Mode != "remove" || e.Pseudonym == nil || !strings.HasPrefix(*e.Pseudonym, "erased-") || len(e.Done) != 5 {
		t.Errorf("erased: %s", res.Body)
	}
	if _, err := f.Admin.Links.Authenticate(ctx, linkToken); err == nil {
		t.Errorf("the erased member's personal link %s still opens", link.ID)
	}
	var cursor uint64
	for {
		keys, next, err := f.Redis.Scan(ctx, cursor, "podium:link*", 100).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if dump, _ := f.Redis.Dump(ctx, k).Result(); strings.Contains(strings.ToLower(dump), "zoe") {
				t.Errorf("%s still names the member", k)
			}
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	for _, path := range []string{"/api/v1/boards/club/entries?period=all", "/api/v1/boards/club/export?period=all&format=json", "/api/v1/boards/club/export?period=week",
		"/api/v1/boards/club/teams", "/b/club", "/b/club/teams"} {
		if _, body := f.Get(path); strings.Contains(strings.ToLower(body), "zoe") {
			t.Errorf("%s still shows the member: %s", path, webtest.Excerpt(body))
		}
	}
	if status, _, _ := f.Call("GET", "/api/v1/boards/club/members/zoe-quill", "", ""); status != 404 {
		t.Errorf("the erased member's standing: %d", status)
	}
	again, err := c.EraseMemberWithResponse(ctx, "club", "zoe-quill", client.EraseMemberJSONRequestBody{})
	if err != nil || again.JSON200 == nil || again.JSON200.Status != "already_erased" || again.JSON200.Pseudonym != nil {
		t.Errorf("again: %v %s", err, again.Body)
	}
	if data, _ := c.GetMemberDataWithResponse(ctx, "club", "zoe-quill"); data.JSON404 == nil {
		t.Errorf("the erased member's data: %d %s", data.StatusCode(), data.Body)
	}
	// The archive unreachable: the erasure says what it did and what is left.
	if _, err := f.Store.Submit(ctx, "club", board.Submission{Member: "amy", Name: "Amy", Score: 1}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	f.App.Archive.Close()
	status, out, _ := f.Call("POST", "/api/v1/boards/club/members/amy/erase", key, "")
	e, _ := out["erasure"].(map[string]any)
	if status != 503 || webtest.ErrCode(out) != "erase_incomplete" || e["status"] != "incomplete" || len(e["done"].([]any)) != 3 || len(e["pending"].([]any)) != 2 {
		t.Errorf("with the archive down: %d %v", status, out)
	}
}

// TestEraseWithAnEmptyChunkedBody: an empty body asks for the default
// mode whether it comes with a length of 0 or chunked (HTTP/2 clients,
// proxies, streams), as the documentation says.
func TestEraseWithAnEmptyChunkedBody(t *testing.T) {
	f, _, key := memberFixture(t)
	req, _ := http.NewRequest("POST", f.URL+"/api/v1/boards/club/members/zoe-quill/erase", strings.NewReader(""))
	req.Header.Set("Authorization", "Bearer "+key)
	req.ContentLength, req.TransferEncoding = -1, []string{"chunked"}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("an erasure with an empty chunked body: %d, want 200", res.StatusCode)
	}
}
