package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"podium/internal/webtest"
)

// TestConsoleRules: the board form's fair-play section saves the rules,
// shows them again, refuses bad ones beside their fields with nothing
// saved, and a form without the section keeps them; a score past a rule
// given in the console is refused beside the value.
func TestConsoleRules(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	a.Get("/admin/boards/new")
	form := boardForm(a.CSRF)
	form.Set("rules_max_value", "100")
	form.Set("rules_max_score", "1,000")
	form.Set("rules_max_rise_per_minute", "")
	form.Set("rules_on_break", "refuse")
	if msg := a.FlashAfter(a.Post("/admin/boards/new", form)); msg != "Board created." {
		t.Fatalf("create: %q", msg)
	}
	if r := f.MustBoard(t, "quiz").Rules; r.Encode() != "max_value=100 max_score=1000" {
		t.Fatalf("rules %q", r.Encode())
	}
	_, edit := a.Get("/admin/boards/quiz/edit")
	for _, want := range []string{`name="rules_max_value" value="100"`, `name="rules_max_score" value="1000"`, `<option value="refuse" selected>`} {
		if !strings.Contains(edit, want) {
			t.Fatalf("the edit form lacks %s: %s", want, webtest.Excerpt(edit))
		}
	}
	for _, k := range []string{"id", "field0", "field0_dir", "field1", "field1_dir", "field2", "field2_dir"} {
		form.Del(k) // the edit form has none of them
	}
	for _, c := range []struct{ name, field, value, id, msg string }{
		{"not a number", "rules_min_value", "ten", "rules_min_value", "must be a whole number of the board&#39;s unit"},
		{"min above max", "rules_min_value", "101", "rules_max_value", "must not be smaller than min_value"},
		{"a rise of 0", "rules_max_rise_per_hour", "0", "rules_max_rise_per_hour", "must be at least 1"},
		{"an unknown choice", "rules_on_break", "ignore", "rules_on_break", "must be refuse or hold"},
	} {
		bad := url.Values{}
		for k, v := range form {
			bad[k] = v
		}
		bad.Set(c.field, c.value)
		res, body := a.Post("/admin/boards/quiz/edit", bad)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="error-`+c.id+`"`) || !strings.Contains(body, c.msg) {
			t.Fatalf("%s: %d %s", c.name, res.StatusCode, webtest.Excerpt(body))
		}
	}
	if r := f.MustBoard(t, "quiz").Rules; r.Encode() != "max_value=100 max_score=1000" {
		t.Fatalf("rules after refused edits %q", r.Encode())
	}
	// A form without the section keeps them.
	for k := range form {
		if strings.HasPrefix(k, "rules_") {
			form.Del(k)
		}
	}
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/edit", form)); msg != "Board saved." {
		t.Fatalf("edit: %q", msg)
	}
	if r := f.MustBoard(t, "quiz").Rules; r.Encode() != "max_value=100 max_score=1000" {
		t.Fatalf("rules after an edit without them %q", r.Encode())
	}
	// A score past a rule, in the console.
	a.Get("/admin/boards/quiz")
	res, body := a.Post("/admin/boards/quiz/score", url.Values{"member": {"ann"}, "op": {"set"}, "value": {"101"}, "reason": {"typo"}, "csrf": {a.CSRF}}, "Origin", f.URL)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="error-s-value"`) ||
		!strings.Contains(body, "breaks the board&#39;s rule max_value (a value of at most 100); nothing was written") {
		t.Fatalf("a score past max_value: %d\n%s", res.StatusCode, webtest.Excerpt(body))
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/quiz/entries", "", ""); status != 200 || out["total"] != 0.0 {
		t.Fatalf("written: %v", out)
	}
}
