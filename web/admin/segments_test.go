package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"podium/audit"
	"podium/board"
	"podium/internal/webtest"
)

// TestConsoleSegments: the board form declares segments and shows them
// when editing (an edit without the field keeps them:
// TestEditFormKeepsSegments); the manage page gives a member a value,
// says which it holds, and refuses bad input inline; every move is in the
// audit log.
func TestConsoleSegments(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	a.Get("/admin/boards/new")
	form := boardForm(a.CSRF)
	form.Set("segments", "country, class")
	if msg := a.FlashAfter(a.Post("/admin/boards/new", form)); msg != "Board created." {
		t.Fatalf("create: %q", msg)
	}
	if b := f.MustBoard(t, "quiz"); strings.Join(b.Segments, ",") != "country,class" {
		t.Fatalf("segments %v", b.Segments)
	}
	if _, edit := a.Get("/admin/boards/quiz/edit"); !strings.Contains(edit, `name="segments" value="country, class"`) {
		t.Fatalf("the edit form does not show the segments: %s", webtest.Excerpt(edit))
	}
	form.Set("segments", "Country!")
	form.Set("id", "quiz2")
	if res, body := a.Post("/admin/boards/new", form); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `href="#segments"`) {
		t.Fatalf("a bad attribute: %d %s", res.StatusCode, webtest.Excerpt(body))
	}

	score := url.Values{"csrf": {a.CSRF}, "member": {"ann"}, "op": {"incr"}, "value": {"5"}, "reason": {"round 1"}}
	if res, body := a.Post("/admin/boards/quiz/score", score); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("score: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	seg := url.Values{"csrf": {a.CSRF}, "member": {"ann"}, "attr": {"country"}, "value": {"NO"}, "reason": {"moved"}}
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/segment", seg)); msg != "ann's country is now NO." {
		t.Fatalf("set: %q", msg)
	}
	seg.Set("value", "SE")
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/segment", seg)); msg != "ann moved from country NO to SE, with their scores." {
		t.Fatalf("move: %q", msg)
	}
	b := f.MustBoard(t, "quiz")
	pg, err := f.Store.SegmentPage(t.Context(), b, b.Current(board.AllTime, f.Store.Now()), board.Segment{Attr: "country", Value: "SE"}, 0, 10)
	if err != nil || len(pg.Entries) != 1 || pg.Entries[0].Member != "ann" || pg.Entries[0].Score != 5 {
		t.Fatalf("SE: %+v %v", pg.Entries, err)
	}
	if _, page := a.Get("/admin/boards/quiz?member=ann"); !strings.Contains(page, "ann: country SE.") {
		t.Fatalf("the looked-up member's values are not shown: %s", webtest.Excerpt(page))
	}
	for field, bad := range map[string]url.Values{
		"g-attr":  {"csrf": {a.CSRF}, "member": {"ann"}, "attr": {"planet"}, "value": {"x"}},
		"g-value": {"csrf": {a.CSRF}, "member": {"ann"}, "attr": {"country"}, "value": {strings.Repeat("x", 33)}},
	} {
		if res, body := a.Post("/admin/boards/quiz/segment", bad); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `href="#`+field+`"`) {
			t.Errorf("bad %s: %d", field, res.StatusCode)
		}
	}
	seg.Set("value", "")
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/segment", seg)); msg != "ann no longer has a country (was SE)." {
		t.Fatalf("out: %q", msg)
	}
	entries, _, _ := f.Admin.Audit.List(t.Context(), audit.Filter{Board: "quiz"}, "", 10)
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
	}
	if got := strings.Join(actions, " "); strings.Count(got, "member.segment") != 3 {
		t.Fatalf("audit actions %s", got)
	}
}
