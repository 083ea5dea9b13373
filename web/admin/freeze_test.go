package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestFreezeFromConsoleAndAPI: the console's form freezes a board (CSRF,
// inline errors, audited); public pages, the widget, the API and exports
// then show the standings of the freeze with its notice, while the console
// shows the live ones; unfreezing reveals them. The API does the same.
func TestFreezeFromConsoleAndAPI(t *testing.T) {
	f := webtest.New(t)
	b := f.Board(board.Board{ID: "quiz", Title: "Quiz", Periods: []board.Kind{board.Weekly, board.AllTime}}, map[string]float64{"ann": 10, "bob": 7})
	a := f.SignedIn()
	if _, body := a.Get("/admin/boards/quiz"); !strings.Contains(body, `data-testid="freeze-form"`) || !strings.Contains(body, `data-testid="admin-live"`) {
		t.Fatal("the board's console page has no freeze form or live standings")
	}
	res, body := a.Post("/admin/boards/quiz/freeze", url.Values{"csrf": {a.CSRF}, "when": {"at"}, "at": {"tomorrow"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="error-f-at"`) || !strings.Contains(body, `href="#f-at"`) || !strings.Contains(body, `value="tomorrow"`) {
		t.Fatalf("a bad time: %d, without its inline error", res.StatusCode)
	}
	if res, _ := a.Post("/admin/boards/quiz/freeze", url.Values{"when": {"now"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a freeze without its CSRF token: %d", res.StatusCode)
	}
	if nb, _ := f.Store.Board(context.Background(), "quiz"); !nb.FreezeAt.IsZero() {
		t.Fatal("a refused form froze the board")
	}
	res, _ = a.Post("/admin/boards/quiz/freeze", url.Values{"csrf": {a.CSRF}, "when": {"now"}, "reason": {"finals"}})
	if msg := a.FlashAfter(res, ""); !strings.HasPrefix(msg, "Frozen: the public sees the standings of ") {
		t.Fatalf("after the freeze: %q", msg)
	}
	if _, err := f.Store.Submit(context.Background(), b.ID, board.Submission{Member: "cat", Score: 50, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}

	for _, path := range []string{"/b/quiz", "/b/quiz?period=week", "/embed/quiz", "/tv?boards=quiz", "/b/quiz/m/ann"} {
		_, body := f.Get(path)
		if !strings.Contains(body, "Frozen since 6 Jan 2027, 12:00 UTC") || strings.Contains(body, ">cat<") {
			t.Errorf("%s: want the frozen notice and no cat (who scored after the freeze)", path)
		}
	}
	if _, body := f.Get("/b/quiz/export?period=all&format=csv"); strings.Contains(body, "cat") || !strings.Contains(body, "ann") {
		t.Errorf("the export shows writes made after the freeze:\n%s", body)
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/quiz/entries?period=all", "", ""); status != 200 || out["total"].(float64) != 2 || !strings.HasPrefix(out["frozen_since"].(string), "2027-01-06T12:00:") {
		t.Errorf("API entries while frozen: %d %v", status, out)
	}
	_, body = a.Get("/admin/boards/quiz")
	if !strings.Contains(body, ">cat<") || !strings.Contains(body, "You see the live standings.") || !strings.Contains(body, "Unfreeze and reveal") {
		t.Error("the console does not show the live standings with its note and the unfreeze button")
	}
	if _, body := a.Get("/admin/audit?board=quiz"); !strings.Contains(body, "board.freeze") || !strings.Contains(body, "finals") {
		t.Error("the freeze is not in the audit log with its reason")
	}

	// A reveal at a set time: a bad time and one before the freeze are
	// said beside the field; a good one is shown and audited.
	res, body = a.Post("/admin/boards/quiz/reveal", url.Values{"csrf": {a.CSRF}, "at": {"later"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="error-v-at"`) || !strings.Contains(body, `href="#v-at"`) {
		t.Fatalf("a bad reveal time: %d", res.StatusCode)
	}
	res, body = a.Post("/admin/boards/quiz/reveal", url.Values{"csrf": {a.CSRF}, "at": {"2027-01-06T11:00"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "must come after the freeze") {
		t.Fatalf("a reveal before the freeze: %d", res.StatusCode)
	}
	res, _ = a.Post("/admin/boards/quiz/reveal", url.Values{"csrf": {a.CSRF}, "at": {"2027-01-06T18:00"}, "reason": {"ceremony"}})
	if msg := a.FlashAfter(res, ""); msg != "The board reveals on its own at 6 Jan 2027, 18:00 UTC." {
		t.Fatalf("after setting the reveal: %q", msg)
	}
	if _, body := a.Get("/admin/boards/quiz"); !strings.Contains(body, "Reveals on its own at 6 Jan 2027, 18:00 UTC.") || !strings.Contains(body, `value="2027-01-06T18:00"`) {
		t.Error("the console does not show the reveal time")
	}
	if _, body := a.Get("/admin/audit?board=quiz"); !strings.Contains(body, "board.reveal") || !strings.Contains(body, "ceremony") {
		t.Error("the reveal is not in the audit log with its reason")
	}

	res, _ = a.Post("/admin/boards/quiz/unfreeze", url.Values{"csrf": {a.CSRF}})
	if msg := a.FlashAfter(res, ""); !strings.HasPrefix(msg, "Revealed") {
		t.Fatalf("after the unfreeze: %q", msg)
	}
	if _, body := f.Get("/b/quiz"); !strings.Contains(body, ">cat<") || strings.Contains(body, "Frozen since") {
		t.Error("after the reveal the board page still hides cat or says frozen")
	}
	res, body = a.Post("/admin/boards/quiz/unfreeze", url.Values{"csrf": {a.CSRF}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "not frozen") {
		t.Errorf("unfreezing twice: %d", res.StatusCode)
	}

	// The same through the API, with a key for the board.
	key := f.Key("contest", "quiz")
	if status, out, _ := f.Call("PUT", "/api/v1/boards/quiz/freeze", key, `{"at":"2027-01-06T13:00:00Z"}`); status != 200 || out["frozen"] != false || out["freeze_at"] != "2027-01-06T13:00:00Z" {
		t.Fatalf("API freeze later: %d %v", status, out)
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/quiz", "", ""); status != 200 || out["freeze_at"] != "2027-01-06T13:00:00Z" {
		t.Fatalf("the board does not say when it freezes: %v", out)
	}
	if status, out, _ := f.Call("DELETE", "/api/v1/boards/quiz/freeze", key, ""); status != 200 || out["freeze_at"] != nil {
		t.Fatalf("API unfreeze: %d %v", status, out)
	}
	if status, out, _ := f.Call("DELETE", "/api/v1/boards/quiz/freeze", key, ""); status != 409 || webtest.ErrCode(out) != "not_frozen" {
		t.Fatalf("API unfreeze twice: %d %v", status, out)
	}
}
