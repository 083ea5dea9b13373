package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestBoardFormSchedule: the board form sets a board's own schedule; one
// that is wrong comes back beside its field, as typed, with nothing made;
// a form without the field (an older page) keeps the schedule; the audit
// log shows the change in words.
func TestBoardFormSchedule(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	a.Get("/admin/boards/new")
	form := boardForm(a.CSRF)
	form["periods"] = []string{"custom", "all"}
	form.Set("default_period", "custom")
	form.Set("schedule", "*/10 * * * *")
	res, body := a.Post("/admin/boards/new", form)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(webtest.Unescape(body), `href="#schedule"`) ||
		!strings.Contains(webtest.Unescape(body), `value="*/10 * * * *"`) || !strings.Contains(body, "10 min apart") {
		t.Fatalf("a schedule too short: %d %s", res.StatusCode, body)
	}
	if bs, _ := f.Store.Boards(t.Context()); len(bs) != 0 {
		t.Fatalf("a bad form created %v", bs)
	}
	form.Set("csrf", a.CSRF)
	form.Set("schedule", "0 18 * * FRI")
	form.Set("schedule_name", "Sprint")
	if msg := a.FlashAfter(a.Post("/admin/boards/new", form)); msg != "Board created." {
		t.Fatalf("message %q", msg)
	}
	b := f.MustBoard(t, "quiz")
	if b.Schedule != "0 18 * * FRI" || b.ScheduleName != "Sprint" || !b.Enabled(board.Custom) {
		t.Fatalf("created %+v", b)
	}
	if _, page := a.Get("/b/quiz"); !strings.Contains(page, "This sprint") || !strings.Contains(page, "Sprint of ") {
		t.Fatalf("the board's page has no sprint tab and title: %s", page)
	}
	a.Get("/admin/boards/quiz/edit")
	edit := url.Values{"csrf": {a.CSRF}, "title": {"Quiz"}, "periods": {"custom", "all"}, "default_period": {"custom"}, "time_zone": {"UTC"},
		"rank_style": {"competition"}, "retention": {"2"}}
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/edit", edit)); msg != "Board saved." {
		t.Fatalf("message %q", msg)
	}
	if b := f.MustBoard(t, "quiz"); b.Schedule != "0 18 * * FRI" {
		t.Fatalf("a form without the field dropped the schedule: %+v", b)
	}
	a.Get("/admin/boards/quiz/edit")
	edit.Set("csrf", a.CSRF)
	edit.Set("schedule", "every 72h from 2026-12-01T00:00")
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/edit", edit)); msg != "Board saved." {
		t.Fatalf("message %q", msg)
	}
	if _, log := a.Get("/admin/audit"); !strings.Contains(log, "Own schedule") || !strings.Contains(log, "every 72h from 2026-12-01T00:00") {
		t.Fatalf("the audit log does not show the new schedule")
	}
}
