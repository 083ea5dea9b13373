package pages_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// amongRows reads the compare table as "member:among/board" words, then
// "no score:" and the members without one.
func amongRows(t *testing.T, body string) string {
	t.Helper()
	re := regexp.MustCompile(`(?s)data-member="([^"]+)" data-rank="(\d+)".*?<td class="field">([^<]*)</td>`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1]+":"+m[2]+"/"+m[3])
	}
	if m := regexp.MustCompile(`(?s)data-testid="among-unranked">(.*?)</p>`).FindStringSubmatch(body); m != nil {
		out = append(out, strings.Join(strings.Fields(m[1]), " "))
	}
	return strings.Join(out, " ")
}

// TestAmongPages: the compare page ranks the members in the address among
// themselves (ties shared) next to their board ranks, and a member's
// friends page shows them among the friends the board keeps; bad ids get
// a page that says why; a board with a privacy mode shows a reader
// without a role nothing of anyone.
func TestAmongPages(t *testing.T) {
	f := webtest.New(t)
	scores := map[string]float64{"ann": 50, "bob": 40, "cat": 40, "dan": 30}
	f.Board(board.Board{ID: "chess", Title: "Chess"}, scores)
	status, body := f.Get("/b/chess/among?members=dan,+cat&member=bob&member=zed")
	if got := amongRows(t, body); status.StatusCode != 200 || got != "bob:1/2 cat:1/2 dan:3/4 No score in this period: zed" {
		t.Errorf("compare: %d %s\n%s", status.StatusCode, got, webtest.Excerpt(body))
	}
	if !strings.Contains(body, `value="bob, zed, dan, cat"`) {
		t.Errorf("the form does not hold the list:\n%s", webtest.Excerpt(body))
	}
	if res, _ := f.Get("/b/chess/among"); res.StatusCode != 200 {
		t.Errorf("empty compare page: %d", res.StatusCode)
	}
	if res, body := f.Get("/b/chess/among?member=" + strings.Repeat("x", 200)); res.StatusCode != 422 || !strings.Contains(body, "member 1") {
		t.Errorf("a bad id: %d\n%s", res.StatusCode, webtest.Excerpt(body))
	}

	if _, _, err := f.Store.SetFriends(context.Background(), "chess", "dan", []string{"ann", "bob"}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	_, body = f.Get("/b/chess/m/dan/friends")
	if got := amongRows(t, body); got != "ann:1/1 bob:2/2 dan:3/4" || !strings.Contains(body, `aria-current="true"`) {
		t.Errorf("friends: %s\n%s", got, webtest.Excerpt(body))
	}

	f.Board(board.Board{ID: "class", Title: "Class", Names: board.Initials}, scores)
	_, body = f.Get("/b/class/among?member=ann&member=bob")
	if got := amongRows(t, body); got != "No score in this period: ann, bob" || strings.Contains(body, "data-live=") {
		t.Errorf("privacy mode, no role: %s", got)
	}
	if res, _ := f.Get("/b/class/m/dan/friends"); res.StatusCode != 404 {
		t.Errorf("privacy mode, another's friends: %d", res.StatusCode)
	}
}
