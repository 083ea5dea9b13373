package api_test

import (
	"strings"
	"testing"

	"podium/internal/webtest"
)

// TestAPIScoreSessions: a board's sessions round-trip; a game server starts
// a run and sends its token with the score; the token again, another
// member's, a malformed one or none are refused (422 naming why) with
// nothing written; an update without sessions keeps them.
func TestAPIScoreSessions(t *testing.T) {
	f := webtest.New(t)
	key := f.Key("ops", "")
	status, out, _ := f.Call("POST", "/api/v1/boards", key, `{"id":"run","title":"Run","sessions":{"min_seconds":0,"max_seconds":300}}`)
	if ss, _ := out["sessions"].(map[string]any); status != 201 || ss["max_seconds"] != 300.0 {
		t.Fatalf("create: %d %v", status, out)
	}
	start := func(member string) string {
		t.Helper()
		status, out, _ := f.Call("POST", "/api/v1/boards/run/sessions", key, `{"member":"`+member+`"}`)
		tok, _ := out["token"].(string)
		if status != 201 || len(tok) != 64 || out["member"] != member || out["expires_at"] == nil {
			t.Fatalf("start: %d %v", status, out)
		}
		return tok
	}
	ann, bob := start("ann"), start("bob")
	for _, c := range []struct{ name, body, code, msg string }{
		{"no token", `{"member":"ann","score":5}`, "session_invalid", "only with a session token"},
		{"another member's", `{"member":"ann","score":5,"session":"` + bob + `"}`, "session_invalid", "belongs to another member"},
		{"malformed", `{"member":"ann","score":5,"session":"x"}`, "invalid", "64-digit token"},
	} {
		status, out, _ := f.Call("POST", "/api/v1/boards/run/scores", key, c.body)
		if status != 422 || webtest.ErrCode(out) != c.code || !strings.Contains(webtest.ErrMessage(out), c.msg) || webtest.ErrField(out) != "session" {
			t.Fatalf("%s: %d %v", c.name, status, out)
		}
	}
	if status, out, _ := f.Call("POST", "/api/v1/boards/run/scores", key, `{"member":"ann","score":5,"session":"`+ann+`"}`); status != 200 {
		t.Fatalf("with its token: %d %v", status, out)
	}
	status, out, _ = f.Call("POST", "/api/v1/boards/run/scores", key, `{"scores":[{"member":"ann","score":5,"session":"`+ann+`"}]}`)
	if status != 422 || webtest.ErrCode(out) != "session_invalid" || !strings.Contains(webtest.ErrMessage(out), "used already") {
		t.Fatalf("reused in a batch: %d %v", status, out)
	}
	if _, body := f.RawCall("GET", "/api/v1/boards/run/entries", "", nil); !strings.Contains(body, `"total":1`) || !strings.Contains(body, `"score":5`) {
		t.Fatalf("entries: %s", body)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/run", key, `{"title":"Run 2"}`); status != 200 || out["sessions"] == nil {
		t.Fatalf("an update without sessions: %d %v", status, out)
	}
}
