package admin_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"podium/board"
	"podium/hooks"
	"podium/internal/webtest"
	"podium/redisstore"
)

func TestAdminWebhooks(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}, nil)
	if err := f.Admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a := f.Browser()
	a.Login("alice", "correct horse battery")
	if _, body := a.Get("/admin/boards/chess"); !strings.Contains(body, `href="/admin/boards/chess/hooks"`) {
		t.Fatal("the board's page does not link its webhooks")
	}
	res, body := a.Get("/admin/boards/chess/hooks")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "No webhooks yet") {
		t.Fatalf("empty page: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	if res, _ := a.Get("/admin/boards/nope/hooks"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown board: %d", res.StatusCode)
	}

	// Bad input: inline errors, values kept, nothing written.
	res, body = a.Post("/admin/boards/chess/hooks", url.Values{"csrf": {a.CSRF}, "url": {"http://example.com/x"}, "periods": {"week"}, "top": {"500"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "must start with https://") ||
		!strings.Contains(body, "choose at least one") || !strings.Contains(body, "from 1 to 100") ||
		!strings.Contains(body, `value="http://example.com/x"`) || !strings.Contains(body, `href="#h-url"`) {
		t.Fatalf("bad input: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	if hs, _ := f.Admin.Hooks.List(t.Context(), "chess"); len(hs) != 0 {
		t.Fatalf("bad input wrote %d hooks", len(hs))
	}
	// The form starts on every period; with that unticked and no period
	// ticked, or both, it says so.
	if _, body := a.Get("/admin/boards/chess/hooks"); !regexp.MustCompile(`name="periods" value="every" checked`).MatchString(body) {
		t.Fatalf("the form does not start on every period: %s", webtest.Excerpt(body))
	}
	for _, ps := range [][]string{nil, {"every", "week"}} {
		res, body := a.Post("/admin/boards/chess/hooks", url.Values{"csrf": {a.CSRF}, "url": {"https://example.com/x"}, "events": {"leader.changed"}, "periods": ps, "top": {"3"}})
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="error-periods"`) {
			t.Fatalf("periods %v: %d %s", ps, res.StatusCode, webtest.Excerpt(body))
		}
	}
	// A URL inside the server's network: refused inline.
	res, body = a.Post("/admin/boards/chess/hooks", url.Values{"csrf": {a.CSRF}, "url": {"https://169.254.169.254/latest/meta-data/"}, "events": {"leader.changed"}, "periods": {"every"}, "top": {"3"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "must point at a public address") || !strings.Contains(body, `href="#h-url"`) {
		t.Fatalf("a private address: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	// Text that is not UTF-8, or a URL with bidi controls: inline errors.
	for _, c := range []struct{ url, events, msg string }{
		{"https://example.com/\xff", "leader.changed", "not valid UTF-8"},
		{"https://example.com/\u202eh", "leader.changed", "bidi controls"},
		{"https://example.com/\u2066h", "leader.changed", "bidi controls"},
		{"https://example.com/h", "leader.changed\xff", "choose at least one"},
	} {
		res, body := a.Post("/admin/boards/chess/hooks", url.Values{"csrf": {a.CSRF}, "url": {c.url}, "events": {c.events}, "periods": {"every"}, "top": {"3"}})
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, c.msg) || !utf8.ValidString(body) {
			t.Fatalf("%+q %+q: %d %s", c.url, c.events, res.StatusCode, webtest.Excerpt(body))
		}
	}
	if hs, _ := f.Admin.Hooks.List(t.Context(), "chess"); len(hs) != 0 {
		t.Fatalf("bad periods, URLs or text wrote %d hooks", len(hs))
	}
	// Without the CSRF token: refused.
	if res, _ := a.Post("/admin/boards/chess/hooks", url.Values{"url": {"https://example.com/x"}, "events": {"leader.changed"}, "top": {"3"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("no CSRF token: %d", res.StatusCode)
	}

	res, body = a.Post("/admin/boards/chess/hooks", url.Values{"csrf": {a.CSRF}, "url": {"https://example.com/x?t=1"},
		"events": {"leader.changed", "period.closed"}, "periods": {"week", "all"}, "top": {"3"}})
	secret := webtest.HookSecret.FindString(body)
	if res.StatusCode != http.StatusCreated || secret == "" || !strings.Contains(body, "will not be shown again") {
		t.Fatalf("create: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	hs, _ := f.Admin.Hooks.List(t.Context(), "chess")
	// Every period the board keeps, ticked one by one: those two, not
	// "every period" (which would take a day the board enabled later).
	if len(hs) != 1 || hs[0].Secret != secret || hs[0].Top != 3 || !slices.Equal(hs[0].Periods, []board.Kind{board.Weekly, board.AllTime}) || hs[0].By != "admin:alice" {
		t.Fatalf("stored: %+v", hs)
	}
	id := hs[0].ID
	if _, body := a.Get("/admin/boards/chess/hooks"); strings.Contains(body, secret) || !strings.Contains(body, "https://example.com/x?t=1") ||
		!strings.Contains(body, "Week, All time") {
		t.Fatal("the secret shows again, or the hook is not listed with its periods")
	}
	for _, step := range []struct{ action, flash string }{
		{"test", "Test event queued"}, {"disable", "turned off"}, {"enable", "turned on"},
	} {
		res, _ := a.Post("/admin/boards/chess/hooks/"+id+"/"+step.action, url.Values{"csrf": {a.CSRF}})
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d", step.action, res.StatusCode)
		}
		if _, body := a.Get("/admin/boards/chess/hooks"); !strings.Contains(body, step.flash) {
			t.Fatalf("%s: no message %q", step.action, step.flash)
		}
	}
	res, body = a.Post("/admin/boards/chess/hooks/"+id+"/rotate", url.Values{"csrf": {a.CSRF}})
	if rotated := webtest.HookSecret.FindString(body); res.StatusCode != http.StatusOK || rotated == "" || rotated == secret {
		t.Fatalf("rotate: %d, secret %q", res.StatusCode, rotated)
	}
	if res, _ := a.Post("/admin/boards/chess/hooks/"+id+"/delete", url.Values{"csrf": {a.CSRF}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if res, _ := a.Post("/admin/boards/chess/hooks/"+id+"/delete", url.Values{"csrf": {a.CSRF}}); res.StatusCode != http.StatusNotFound {
		t.Fatalf("delete again: %d", res.StatusCode)
	}
	if got := f.HookAudit("chess", "admin:alice"); got != "hook.delete hook.rotate hook.enable hook.disable hook.test hook.create" {
		t.Fatalf("audit: %s", got)
	}

	// Every period, later ones included, is its own box.
	res, body = a.Post("/admin/boards/chess/hooks", url.Values{"csrf": {a.CSRF}, "url": {"https://example.com/y"}, "events": {"leader.changed"}, "periods": {"every"}, "top": {"3"}})
	if hs, _ := f.Admin.Hooks.List(t.Context(), "chess"); res.StatusCode != http.StatusCreated || len(hs) != 1 || !hs[0].AllPeriods() {
		t.Fatalf("every period: %d %+v %s", res.StatusCode, hs, webtest.Excerpt(body))
	}
}

// A webhook an earlier board of the same id left behind is not this
// board's: the console neither lists it nor acts on it.
func TestAdminEarlierBoardsWebhook(t *testing.T) {
	f := webtest.New(t)
	b := f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	if err := f.Admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a := f.Browser()
	a.Login("alice", "correct horse battery")
	h, err := f.Admin.Hooks.Create(t.Context(), b, hooks.Input{URL: "https://example.com/old", Events: []hooks.Event{hooks.NewLeader}, AllPeriods: true, Top: 1}, "admin:alice")
	if err != nil {
		t.Fatal(err)
	}
	h.BoardCreated--
	js, _ := json.Marshal(h)
	if err := f.Store.Client().HSet(t.Context(), redisstore.HooksKey("chess"), h.ID, js).Err(); err != nil {
		t.Fatal(err)
	}
	if _, body := a.Get("/admin/boards/chess/hooks"); strings.Contains(body, "https://example.com/old") {
		t.Fatal("an earlier board's webhook is listed")
	}
	for _, action := range []string{"test", "disable", "rotate", "delete"} {
		if res, _ := a.Post("/admin/boards/chess/hooks/"+h.ID+"/"+action, url.Values{"csrf": {a.CSRF}}); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s an earlier board's webhook: %d", action, res.StatusCode)
		}
	}
	if after, err := f.Admin.Hooks.Get(t.Context(), "chess", h.ID); err != nil || after.Secret != h.Secret || !after.Enabled {
		t.Fatalf("an earlier board's webhook was changed: %+v %v", after, err)
	}
}
