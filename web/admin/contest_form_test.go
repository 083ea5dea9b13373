package admin_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"podium/audit"
	"podium/internal/webtest"
)

// TestConsoleContestWindow: the board form's contest window is read in the
// board's time zone (named beside it), shown again in it, changed and
// taken off, each change audited in words; what is wrong is said beside
// its field, and nothing is written.
func TestConsoleContestWindow(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	_, page := a.Get("/admin/boards/new")
	for _, want := range []string{`type="datetime-local" id="opens_at" name="opens_at"`, `id="closes_at"`, `<strong data-zone-name>UTC</strong>`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the new-board form lacks %s", want)
		}
	}
	form := boardForm(a.CSRF)
	form.Set("time_zone", "Europe/Paris")
	form.Set("opens_at", "2027-01-08T15:00")
	form.Set("closes_at", "2027-01-09T18:30:15")
	if msg := a.FlashAfter(a.Post("/admin/boards/new", form)); msg != "Board created." {
		t.Fatalf("create: %q", msg)
	}
	opens, closes := time.Date(2027, 1, 8, 14, 0, 0, 0, time.UTC), time.Date(2027, 1, 9, 17, 30, 15, 0, time.UTC)
	if b := f.MustBoard(t, "quiz"); !b.OpensAt.Equal(opens) || !b.ClosesAt.Equal(closes) {
		t.Fatalf("window %v – %v", b.OpensAt, b.ClosesAt)
	}
	_, edit := a.Get("/admin/boards/quiz/edit")
	for _, want := range []string{`name="opens_at" value="2027-01-08T15:00"`, `name="closes_at" value="2027-01-09T18:30:15"`, `<strong data-zone-name>Europe/Paris</strong>`} {
		if !strings.Contains(edit, want) {
			t.Fatalf("the edit form lacks %s: %s", want, webtest.Excerpt(edit))
		}
	}

	for _, k := range []string{"id", "field0", "field0_dir", "field1", "field1_dir", "field2", "field2_dir"} {
		form.Del(k) // the edit form has none of them
	}
	for _, c := range []struct{ name, field, value, msg string }{
		{"a close before the opening", "closes_at", "2027-01-08T14:59", "must come after the opening"},
		{"a close at the opening", "closes_at", "2027-01-08T15:00", "must come after the opening"},
		{"not a time", "opens_at", "next friday", "must be a date and time such as 2027-01-06T18:00"},
		{"a date without a time", "opens_at", "2027-01-08", "must be a date and time such as 2027-01-06T18:00"},
		{"out of range", "opens_at", "1999-12-31T23:00", "must be between 2000 and 9999"},
		{"a time the clocks skip", "closes_at", "2027-03-28T02:30", "2027-03-28 02:30 does not exist in Europe/Paris: the clocks skip it"},
		{"a long value", "closes_at", strings.Repeat("2", 5000), "must be a date and time"},
	} {
		sent := cloneValues(form)
		sent.Set(c.field, c.value)
		res, body := a.Post("/admin/boards/quiz/edit", sent)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `href="#`+c.field+`"`) ||
			!strings.Contains(body, `id="`+c.field+`-error" data-testid="error-`+c.field+`">`+c.msg) {
			t.Errorf("%s: %d %s", c.name, res.StatusCode, webtest.Excerpt(body))
		}
		if len(c.value) < 100 && !strings.Contains(body, `name="`+c.field+`" value="`+c.value+`"`) {
			t.Errorf("%s: the value sent is not shown again", c.name)
		}
	}
	if b := f.MustBoard(t, "quiz"); !b.OpensAt.Equal(opens) || !b.ClosesAt.Equal(closes) {
		t.Fatalf("a refused form changed the window: %v – %v", b.OpensAt, b.ClosesAt)
	}

	// A form without the section (a script written before it) keeps the
	// window; one with the opening emptied takes that bound off.
	bare := cloneValues(form)
	bare.Del("opens_at")
	bare.Del("closes_at")
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/edit", bare)); msg != "Board saved." {
		t.Fatalf("edit without the section: %q", msg)
	}
	if b := f.MustBoard(t, "quiz"); !b.OpensAt.Equal(opens) || !b.ClosesAt.Equal(closes) {
		t.Fatalf("a form without the section changed the window: %v – %v", b.OpensAt, b.ClosesAt)
	}
	form.Set("opens_at", "")
	form.Set("closes_at", "2027-01-10T09:00")
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/edit", form)); msg != "Board saved." {
		t.Fatalf("edit: %q", msg)
	}
	if b := f.MustBoard(t, "quiz"); !b.OpensAt.IsZero() || !b.ClosesAt.Equal(time.Date(2027, 1, 10, 8, 0, 0, 0, time.UTC)) {
		t.Fatalf("after an edit: %v – %v", b.OpensAt, b.ClosesAt)
	}
	entries, _, _ := f.Admin.Audit.List(t.Context(), audit.Filter{Board: "quiz"}, "", 10)
	if len(entries) == 0 || entries[0].Action != "board.update" || !strings.Contains(entries[0].After, `"closes_at":"2027-01-10T08:00:00Z"`) {
		t.Fatalf("audited %+v", entries)
	}
	_, audited := a.Get("/admin/audit?board=quiz")
	for _, want := range []string{"Contest opens", "8 Jan 2027, 15:00 CET", "(no bound)", "Contest closes", "9 Jan 2027, 18:30 CET", "10 Jan 2027, 09:00 CET"} {
		if !strings.Contains(webtest.Unescape(audited), want) {
			t.Errorf("the audit log lacks %q", want)
		}
	}
}

// TestConsoleContestWindowKeptAsShown: a bound the form cannot show exactly
// (set through the API: the second of two wall-clock times the clocks go
// back over, or a fraction of a second) is kept when the form is saved with
// its field as shown, not moved to what the field reads as.
func TestConsoleContestWindowKeptAsShown(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	a.Get("/admin/boards/new")
	form := boardForm(a.CSRF)
	form.Set("time_zone", "Europe/Paris")
	form.Set("opens_at", "2027-01-08T14:00:00.5Z")
	form.Set("closes_at", "2027-10-31T01:30:00Z") // 02:30 CET, after 02:30 CEST
	if msg := a.FlashAfter(a.Post("/admin/boards/new", form)); msg != "Board created." {
		t.Fatalf("create: %q", msg)
	}
	before := f.MustBoard(t, "quiz")
	_, edit := a.Get("/admin/boards/quiz/edit")
	for _, want := range []string{`name="opens_at" value="2027-01-08T15:00"`, `name="closes_at" value="2027-10-31T02:30"`} {
		if !strings.Contains(edit, want) {
			t.Fatalf("the edit form lacks %s: %s", want, webtest.Excerpt(edit))
		}
	}
	for _, k := range []string{"id", "field0", "field0_dir", "field1", "field1_dir", "field2", "field2_dir"} {
		form.Del(k) // the edit form has none of them
	}
	form.Set("opens_at", "2027-01-08T15:00")
	form.Set("closes_at", "2027-10-31T02:30")
	form.Set("title", "Quiz night")
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/edit", form)); msg != "Board saved." {
		t.Fatalf("edit: %q", msg)
	}
	if b := f.MustBoard(t, "quiz"); !b.OpensAt.Equal(before.OpensAt) || !b.ClosesAt.Equal(before.ClosesAt) {
		t.Fatalf("saving the form as shown moved the window from %v – %v to %v – %v", before.OpensAt, before.ClosesAt, b.OpensAt, b.ClosesAt)
	}
	// A zone changed in the same form reads the fields in the new zone.
	form.Set("time_zone", "UTC")
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/edit", form)); msg != "Board saved." {
		t.Fatalf("edit: %q", msg)
	}
	if b := f.MustBoard(t, "quiz"); !b.ClosesAt.Equal(time.Date(2027, 10, 31, 2, 30, 0, 0, time.UTC)) {
		t.Fatalf("in a new zone: %v", b.ClosesAt)
	}
}
