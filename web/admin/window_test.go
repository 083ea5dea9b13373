package admin_test

import (
	"net/http"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestBoardFormRollingWindows: the console makes a board with rolling
// windows and a window mode, and refuses to change the mode while a window
// is on, inline, writing nothing.
func TestBoardFormRollingWindows(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	_, page := a.Get("/admin/boards/new")
	for _, want := range []string{`id="period-last24h"`, `id="period-last7d"`, `id="period-last30d"`, `name="window"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the new-board form lacks %s", want)
		}
	}
	form := boardForm(a.CSRF)
	form["periods"] = []string{"week", "last7d"}
	form.Set("default_period", "last7d")
	form.Set("window", "best")
	if msg := a.FlashAfter(a.Post("/admin/boards/new", form)); msg != "Board created." {
		t.Fatalf("message %q", msg)
	}
	b, err := f.Store.Board(t.Context(), "quiz")
	if err != nil || b.Window != board.WindowBest || !b.Enabled(board.Last7d) || b.DefaultPeriod != board.Last7d {
		t.Fatalf("board %+v %v", b, err)
	}
	_, page = a.Get("/admin/boards/quiz/edit")
	if !strings.Contains(page, `<option value="best" selected>`) {
		t.Fatal("the edit form does not show the window mode")
	}
	form.Set("csrf", a.CSRF)
	form.Set("window", "sum")
	for _, fixed := range []string{"id", "format", "decimals", "order", "tie_break", "field0", "field0_dir", "field1", "field1_dir", "field2", "field2_dir"} {
		form.Del(fixed) // the edit form shows these as text
	}
	res, body := a.Post("/admin/boards/quiz/edit", form)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.Unescape(body), "cannot change while a rolling window is enabled") || !strings.Contains(body, `href="#window"`) {
		t.Fatalf("mode change: %d %s", res.StatusCode, webtest.Unescape(body))
	}
	if b, _ := f.Store.Board(t.Context(), "quiz"); b.Window != board.WindowBest {
		t.Fatalf("the refused edit wrote %q", b.Window)
	}
}
