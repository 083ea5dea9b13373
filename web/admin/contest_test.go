package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
)

// TestConsoleScoreOutsideTheContest: a score given in the console on a
// board whose contest has closed is refused beside its field, saying
// when it closed, and nothing is written.
func TestConsoleScoreOutsideTheContest(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "ctf", Title: "CTF", ClosesAt: time.Date(2027, 1, 6, 11, 0, 0, 0, time.UTC)}, nil)
	a := f.SignedIn()
	a.Get("/admin/boards/ctf")
	res, body := a.Post("/admin/boards/ctf/score", url.Values{"member": {"ann"}, "op": {"set"}, "value": {"7"}, "reason": {"late entry"}, "csrf": {a.CSRF}}, "Origin", f.URL)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="error-s-value"`) ||
		!strings.Contains(body, "the contest has closed: it closed at 6 Jan 2027, 11:00 UTC; nothing was written") {
		t.Fatalf("a score after the close: %d\n%s", res.StatusCode, webtest.Excerpt(body))
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/ctf/entries", "", ""); status != 200 || out["total"] != 0.0 {
		t.Fatalf("written: %v", out)
	}
}
