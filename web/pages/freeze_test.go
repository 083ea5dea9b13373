package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
)

// recentOnPage is the recent-changes list of a board page's HTML.
func recentOnPage(t *testing.T, body string) string {
	t.Helper()
	_, list, ok := strings.Cut(body, `data-testid="recent"`)
	if !ok {
		t.Fatal("the board page has no recent changes")
	}
	list, _, _ = strings.Cut(list, "</ul>")
	return list
}

// TestFrozenBoardHidesLaterNamesAndMembers (issue 24): after the freeze,
// a member first seen with a name, a rename and a removal do not show on
// any public page or API answer: the member API and page of the newcomer
// answer 404, names are those of the freeze on pages, the widget, /tv, the
// API and exports, and the recent changes keep their lines however many
// writes follow. The console shows the live names; the reveal shows them
// to everyone.
func TestFrozenBoardHidesLaterNamesAndMembers(t *testing.T) {
	f := webtest.New(t)
	ctx := context.Background()
	b := f.Board(board.Board{ID: "cup", Title: "Cup", Periods: []board.Kind{board.Weekly, board.AllTime}}, nil)
	by := board.Author{Actor: "test"}
	submit := func(member, name string, score float64) {
		t.Helper()
		if _, err := f.Store.Submit(ctx, b.ID, board.Submission{Member: member, Name: name, Score: score, Op: board.Set}, by); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range []string{"m1", "m2", "m3", "m4", "m5", "m6"} {
		submit(m, "", float64(i+1))
	}
	submit("dave", "Dave Deer", 30)
	submit("bob", "Bob Bear", 40)
	submit("ann", "Ann Ant", 50)
	if _, err := f.Store.Freeze(ctx, b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	_, page := f.Get("/b/cup")
	atFreeze := recentOnPage(t, page)
	if n := strings.Count(atFreeze, "<li>"); n != 8 {
		t.Fatalf("the page shows %d recent changes at the freeze, want 8", n)
	}

	submit("zed", "Zed Zebra", 100)
	submit("yan", "", 90)
	if _, err := f.Store.SetName(ctx, b.ID, "bob", "Robert Bear", by); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Store.RemoveMember(ctx, b.ID, "dave", nil, by); err != nil {
		t.Fatal(err)
	}

	_, page = f.Get("/b/cup")
	if got := recentOnPage(t, page); got != atFreeze {
		t.Errorf("the recent changes moved after writes past the freeze:\n%s\nwant\n%s", got, atFreeze)
	}
	for _, path := range []string{"/b/cup", "/b/cup?period=week", "/embed/cup", "/tv?boards=cup", "/b/cup/m/dave", "/b/cup/m/bob", "/b/cup/around/dave"} {
		_, body := f.Get(path)
		if !strings.Contains(body, "Frozen since") || strings.Contains(body, "Zebra") || strings.Contains(body, "Robert") {
			t.Errorf("%s: shows a name given after the freeze", path)
		}
		if (strings.Contains(path, "dave") || !strings.Contains(path, "/m/")) && !strings.Contains(body, "Dave Deer") {
			t.Errorf("%s: dave, removed after the freeze, lost his name", path)
		}
	}
	if res, _ := f.Get("/b/cup/m/zed"); res.StatusCode != http.StatusNotFound {
		t.Errorf("zed's page, who first scored after the freeze: %d, want 404", res.StatusCode)
	}
	for q, want := range map[string]string{"rob": "0 matches", "bob": "1 match", "zed": "0 matches", "dave": "1 match"} {
		if _, body := f.Get("/b/cup?q=" + q); !strings.Contains(body, want+" for “"+q+"”") {
			t.Errorf("a search for %q while frozen: want %s, as at the freeze", q, want)
		}
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/cup/members/zed", "", ""); status != 404 || webtest.ErrCode(out) != "member_not_found" {
		t.Errorf("API member zed, who first scored after the freeze: %d %v, want 404", status, out)
	}
	for member, name := range map[string]string{"bob": "Bob Bear", "dave": "Dave Deer"} {
		if status, out, _ := f.Call("GET", "/api/v1/boards/cup/members/"+member, "", ""); status != 200 || out["name"] != name {
			t.Errorf("API member %s: %d %v, want 200 named %q", member, status, out, name)
		}
	}
	if _, out, _ := f.Call("GET", "/api/v1/boards/cup/entries?period=all", "", ""); !strings.Contains(fmt.Sprint(out["entries"]), "Dave Deer") || strings.Contains(fmt.Sprint(out["entries"]), "Robert") {
		t.Errorf("API entries while frozen: %v", out["entries"])
	}
	_, apiExport, _ := f.Send("GET", "/api/v1/boards/cup/export?period=all&format=json", "", nil)
	_, pageExport := f.Get("/b/cup/export?period=all&format=csv")
	for path, body := range map[string]string{"API export": apiExport, "page export": pageExport} {
		if !strings.Contains(body, "Dave Deer") || !strings.Contains(body, "Bob Bear") || strings.Contains(body, "Robert") || strings.Contains(body, "Zebra") {
			t.Errorf("%s: not the names of the freeze:\n%s", path, body)
		}
	}
	a := f.SignedIn()
	if _, body := a.Get("/admin/boards/cup"); !strings.Contains(body, "Robert Bear") || !strings.Contains(body, "Zed Zebra") {
		t.Error("the console does not show the live names")
	}

	if _, err := f.Store.Unfreeze(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, body := f.Get("/b/cup"); strings.Contains(body, "Frozen since") || !strings.Contains(body, "Robert Bear") || !strings.Contains(body, "Zed Zebra") || strings.Contains(body, "Dave Deer") {
		t.Error("after the reveal the board page does not show the live names")
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/cup/members/zed", "", ""); status != 200 || out["name"] != "Zed Zebra" {
		t.Errorf("API member zed after the reveal: %d %v", status, out)
	}
}
