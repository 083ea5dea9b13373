package admin_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/internal/webtest"
)

// TestBoardUsersAuditLogStartsWithTheirBoard: a board made again under a
// deleted board's id shows its board users its own log only, not the
// earlier board's (its members and scores were never theirs to read),
// whatever the cursor or actor the address asks for. A site admin still
// reads both.
func TestBoardUsersAuditLogStartsWithTheirBoard(t *testing.T) {
	f := webtest.New(t)
	ctx := t.Context()
	root := f.SignedIn()
	f.Board(board.Board{ID: "class", Title: "Class of last year", Visibility: board.Private}, nil)
	if _, err := f.Store.Submit(ctx, "class", board.Submission{Member: "oldkid", Score: 7, Op: board.Set}, board.Author{Actor: "admin:alice"}); err != nil {
		t.Fatal(err)
	}
	root.Get("/admin/boards/class/delete")
	if res, body := root.Post("/admin/boards/class/delete", url.Values{"csrf": {root.CSRF}, "confirm": {"class"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d %q", res.StatusCode, webtest.Excerpt(body))
	}
	b := f.Board(board.Board{ID: "class", Title: "Class of this year", Visibility: board.Private}, nil)
	if _, err := f.Store.Submit(ctx, "class", board.Submission{Member: "newkid", Score: 3, Op: board.Set}, board.Author{Actor: "admin:alice"}); err != nil {
		t.Fatal(err)
	}
	teacher := signedInAs(t, f, "teacher", access.Viewer, b)

	entries, _, err := f.Admin.Audit.List(ctx, audit.Filter{Board: "class"}, "", 50)
	if err != nil || len(entries) < 3 {
		t.Fatalf("the log of class: %v %v", entries, err)
	}
	newest := entries[0].ID // newkid's: a cursor from there reads older entries
	for _, q := range []string{"", "&before=" + url.QueryEscape(newest), "&actor=admin:alice", "&actor=admin:alice&before=" + url.QueryEscape(newest)} {
		res, body := teacher.Get("/admin/audit?board=class" + q)
		if res.StatusCode != http.StatusOK || strings.Contains(body, "oldkid") || strings.Contains(body, "board.delete") {
			t.Errorf("audit?board=class%s as the new board's viewer: %d %q, want none of the earlier board's entries", q, res.StatusCode, webtest.Excerpt(body))
		}
		if q == "" && !strings.Contains(body, "newkid") {
			t.Errorf("the viewer does not see the board's own entries: %q", webtest.Excerpt(body))
		}
	}
	if _, body := root.Get("/admin/audit?board=class"); !strings.Contains(body, "oldkid") || !strings.Contains(body, "newkid") {
		t.Errorf("a site admin does not read the whole log of the id: %q", webtest.Excerpt(body))
	}
}

// TestUserKindByEscapedName: a user named by an address is found by its
// path however the browser escaped it (%40 for @), as removing one is.
func TestUserKindByEscapedName(t *testing.T) {
	f := webtest.New(t)
	root := f.SignedIn()
	if err := f.Admin.Accounts.CreateBoardUser(t.Context(), "ta+x@school.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	root.Get("/admin/users")
	if res, body := root.Post("/admin/users/ta%2Bx%40school.example/kind", url.Values{"csrf": {root.CSRF}, "kind": {"site"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("kind of ta+x%%40school.example: %d %q", res.StatusCode, webtest.Excerpt(body))
	}
	if acc, err := f.Admin.Accounts.Get(t.Context(), "ta+x@school.example"); err != nil || !acc.SiteAdmin {
		t.Errorf("after the change: %+v %v", acc, err)
	}
	entries, _, err := f.Admin.Audit.List(t.Context(), audit.Filter{}, "", 10)
	if err != nil || len(entries) == 0 || entries[0].Action != "user.kind" ||
		entries[0].Before != "ta+x@school.example: board user" || entries[0].After != "ta+x@school.example: site admin" {
		t.Errorf("the kind's audit entry: %+v %v", entries, err)
	}
}

// TestNoRoleCostsLikeAnUnknownBoard: a board user asking for a board they
// hold no role on makes the same Redis commands as for an unknown board,
// whether the definition and the role are cached or not, so the time of
// the answer does not tell them the board exists either.
func TestNoRoleCostsLikeAnUnknownBoard(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "class", Title: "Class", Visibility: board.Private}, map[string]float64{"ann": 1})
	mine := f.Board(board.Board{ID: "mine", Title: "Mine"}, nil)
	a := signedInAs(t, f, "stranger", access.Owner, mine)
	ctx := t.Context()
	calls := func(path string) int {
		if err := f.Redis.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if res, _ := a.Get(path); res.StatusCode != http.StatusNotFound {
			t.Fatalf("%s: %d", path, res.StatusCode)
		}
		info, err := f.Redis.Info(ctx, "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range regexp.MustCompile(`cmdstat_(\w+):calls=(\d+)`).FindAllStringSubmatch(info, -1) {
			if m[1] != "info" && m[1] != "config|resetstat" && m[1] != "config" {
				c, _ := strconv.Atoi(m[2])
				n += c
			}
		}
		return n
	}
	for _, warm := range []bool{false, true} {
		if !warm {
			time.Sleep(1100 * time.Millisecond) // past the definition's and the role's caches
		}
		held := calls("/admin/boards/class")
		if !warm {
			time.Sleep(1100 * time.Millisecond)
		}
		unknown := calls("/admin/boards/ghost")
		if warm { // again, each straight after itself
			held, unknown = calls("/admin/boards/class"), calls("/admin/boards/ghost")
		}
		if held != unknown {
			t.Errorf("warm %v: a board held by others costs %d Redis commands, an unknown one %d", warm, held, unknown)
		}
	}
}
