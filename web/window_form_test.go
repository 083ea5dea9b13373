package web

import (
	"net/http"
	"strings"
	"testing"

	"podium/board"
)

// TestBoardFormRollingWindows: the console makes a board with rolling
// windows and a window mode, and refuses to change the mode while a window
// is on, inline, writing nothing.
func TestBoardFormRollingWindows(t *testing.T) {
	f := newAPIFixture(t, 1000, 1000)
	a := signedIn(t, f)
	_, page := a.get("/admin/boards/new")
	for _, want := range []string{`id="period-last24h"`, `id="period-last7d"`, `id="period-last30d"`, `name="window"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the new-board form lacks %s", want)
		}
	}
	form := boardForm(a.csrf)
	form["periods"] = []string{"week", "last7d"}
	form.Set("default_period", "last7d")
	form.Set("window", "best")
	if msg := a.flashAfter(a.post("/admin/boards/new", form)); msg != "Board created." {
		t.Fatalf("message %q", msg)
	}
	b, err := f.store.Board(t.Context(), "quiz")
	if err != nil || b.Window != board.WindowBest || !b.Enabled(board.Last7d) || b.DefaultPeriod != board.Last7d {
		t.Fatalf("board %+v %v", b, err)
	}
	_, page = a.get("/admin/boards/quiz/edit")
	if !strings.Contains(page, `<option value="best" selected>`) {
		t.Fatal("the edit form does not show the window mode")
	}
	form.Set("csrf", a.csrf)
	form.Set("window", "sum")
	for _, fixed := range []string{"id", "format", "decimals", "order", "tie_break", "field0", "field0_dir", "field1", "field1_dir", "field2", "field2_dir"} {
		form.Del(fixed) // the edit form shows these as text
	}
	res, body := a.post("/admin/boards/quiz/edit", form)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(unescape(body), "cannot change while a rolling window is enabled") || !strings.Contains(body, `href="#window"`) {
		t.Fatalf("mode change: %d %s", res.StatusCode, unescape(body))
	}
	if b, _ := f.store.Board(t.Context(), "quiz"); b.Window != board.WindowBest {
		t.Fatalf("the refused edit wrote %q", b.Window)
	}
}
