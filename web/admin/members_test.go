package admin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"podium/access"
	"podium/board"
	"podium/internal/webtest"
	"podium/memberdata"
)

// TestMemberDataAndErasure: a board's owner finds the download and the
// erasure beside the member lookup (a scorekeeper does not), downloads the
// member's data, and erases the member once the form is right; a wrong
// form erases nothing; an erased member is gone from the console and the
// audit log names its pseudonym only.
func TestMemberDataAndErasure(t *testing.T) {
	f := webtest.New(t, webtest.Archive())
	b := f.Board(board.Board{ID: "class", Title: "Class 4B", Periods: []board.Kind{board.Weekly, board.AllTime}}, map[string]float64{"amy": 3})
	if _, err := f.Store.Submit(context.Background(), "class", board.Submission{Member: "zoe-quill", Name: "Zoe Quill", Score: 9, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	keeper := signedInAs(t, f, "keeper", access.Scorekeeper, b)
	if _, body := keeper.Get("/admin/boards/class?member=zoe-quill"); strings.Contains(body, `data-testid="member-data"`) {
		t.Error("a scorekeeper is offered the member's data and erasure")
	}
	owner := signedInAs(t, f, "owner", access.Owner, b)
	_, page := owner.Get("/admin/boards/class?member=zoe-quill")
	for _, want := range []string{`href="/admin/boards/class/data?member=zoe-quill"`, `href="/admin/boards/class/erase?member=zoe-quill"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the owner's lookup lacks %s", want)
		}
	}
	res, raw := owner.Get("/admin/boards/class/data?member=zoe-quill")
	var d memberdata.Data
	if err := json.Unmarshal([]byte(raw), &d); err != nil || res.StatusCode != 200 || d.Name != "Zoe Quill" || len(d.Periods) != 2 ||
		!strings.HasPrefix(res.Header.Get("Content-Disposition"), `attachment; filename="podium-class-zoe-quill-`) {
		t.Fatalf("download: %d %q %v %.300s", res.StatusCode, res.Header.Get("Content-Disposition"), err, raw)
	}
	if res, body := owner.Get("/admin/boards/class/data?member=nobody"); res.StatusCode != 404 || !strings.Contains(body, "never there, or it has been erased") {
		t.Errorf("an unknown member's data: %d %q", res.StatusCode, webtest.Excerpt(body))
	}
	if _, body := owner.Get("/admin/boards/class/erase?member=zoe-quill"); !strings.Contains(body, `value="zoe-quill"`) || !strings.Contains(body, "Beyond its reach") {
		t.Errorf("the erase page: %q", webtest.Excerpt(body))
	}
	form := func(member, mode, confirm string) url.Values {
		return url.Values{"csrf": {owner.CSRF}, "member": {member}, "mode": {mode}, "confirm": {confirm}}
	}
	for _, bad := range []struct {
		form   url.Values
		status int
		testid string
	}{
		{form("zoe-quill", "remove", "zoe"), 422, "error-e-confirm"},
		{form("zoe-quill", "shred", "zoe-quill"), 422, "error-e-mode"},
		{form("nobody", "", "nobody"), 404, "error-e-member"},
	} {
		res, body := owner.Post("/admin/boards/class/erase", bad.form)
		if res.StatusCode != bad.status || !strings.Contains(body, `data-testid="`+bad.testid+`"`) {
			t.Errorf("%v: %d %q", bad.form, res.StatusCode, webtest.Excerpt(body))
		}
	}
	if st, _ := f.Store.Member(context.Background(), b, "zoe-quill"); !st[0].Ranked {
		t.Fatal("a refused erasure erased")
	}
	msg := owner.FlashAfter(owner.Post("/admin/boards/class/erase", form("zoe-quill", "remove", "zoe-quill")))
	if !strings.HasPrefix(msg, "Member erased: removed from the open periods") || strings.Contains(msg, "zoe") {
		t.Errorf("after the erasure: %q", msg)
	}
	for _, path := range []string{"/admin/boards/class", "/admin/audit?board=class", "/b/class"} {
		if res, body := owner.Get(path); res.StatusCode != 200 || strings.Contains(strings.ToLower(body), "zoe") {
			t.Errorf("%s still shows the member: %d %q", path, res.StatusCode, webtest.Excerpt(body))
		}
	}
	if _, body := owner.Get("/admin/audit?board=class"); !strings.Contains(body, "member.erase") {
		t.Errorf("the audit log has no erasure: %q", webtest.Excerpt(body))
	}
	if msg := owner.FlashAfter(owner.Post("/admin/boards/class/erase", form("zoe-quill", "", "zoe-quill"))); msg != "That member was erased before: nothing of it is left." {
		t.Errorf("a second erasure: %q", msg)
	}
	if res, _ := keeper.Post("/admin/boards/class/erase", url.Values{"csrf": {keeper.CSRF}, "member": {"amy"}, "confirm": {"amy"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("a scorekeeper's erasure: %d", res.StatusCode)
	}
}
