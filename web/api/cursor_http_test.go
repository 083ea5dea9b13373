package api_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// walkPage is one page of a walk by cursor: its members and its next.
type walkPage struct {
	members []string
	next    string
	offset  int
	total   int
}

func getPage(t *testing.T, f *webtest.Server, path, key string) walkPage {
	t.Helper()
	status, out, _ := f.Call("GET", path, key, "")
	if status != 200 {
		t.Fatalf("%s: %d %v", path, status, out)
	}
	var pg walkPage
	for _, e := range out["entries"].([]any) {
		pg.members = append(pg.members, e.(map[string]any)["member"].(string))
	}
	pg.next, _ = out["next"].(string)
	pg.offset, pg.total = int(out["offset"].(float64)), int(out["total"].(float64))
	return pg
}

// TestCursorWalkOverHTTP: a client walking a board by next while others
// write to it (members joining at tied scores, one moving up and down)
// sees every member that kept its place once, and the last page has no
// next; the walk reads what was written a moment before, cache or not.
func TestCursorWalkOverHTTP(t *testing.T) {
	f := webtest.New(t)
	scores := map[string]float64{}
	for i := range 30 {
		scores[fmt.Sprintf("m%02d", i)] = float64(i % 4)
	}
	b := f.Board(board.Board{ID: "ties", Title: "Ties"}, scores)
	seen := map[string]int{}
	path := "/api/v1/boards/ties/entries?period=all&limit=4"
	pg := getPage(t, f, path, "")
	for step := 0; ; step++ {
		for _, m := range pg.members {
			seen[m]++
		}
		if pg.next == "" {
			break
		}
		if step > 30 {
			t.Fatal("the walk does not end")
		}
		for _, sub := range []board.Submission{
			{Member: fmt.Sprintf("new%02d", step), Score: float64(step % 4), Op: board.Set},
			{Member: "m00", Score: float64(3 * (step % 2)), Op: board.Set}, // up and down
		} {
			if _, err := f.Store.Submit(t.Context(), b.ID, sub, board.Author{Actor: "test"}); err != nil {
				t.Fatal(err)
			}
		}
		pg = getPage(t, f, path+"&after="+url.QueryEscape(pg.next), "")
	}
	for m := range scores {
		if m != "m00" && seen[m] != 1 {
			t.Errorf("%s kept its place and was seen %d times", m, seen[m])
		}
	}
	if pg.offset+len(pg.members) != pg.total {
		t.Errorf("the last page: %+v", pg)
	}
}

// TestCursorRequests: offset and after together, a cursor that is not
// one, one of another board or period, are 400s that say which; a cursor
// works for any reader of its board.
func TestCursorRequests(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}, map[string]float64{"ann": 3, "bob": 2, "cat": 1})
	f.Board(board.Board{ID: "go", Title: "Go"}, map[string]float64{"ann": 3, "bob": 2})
	next := getPage(t, f, "/api/v1/boards/chess/entries?period=all&limit=1", "").next
	goNext := getPage(t, f, "/api/v1/boards/go/entries?period=all&limit=1", "").next
	if next == "" || goNext == "" {
		t.Fatal("no next")
	}
	for _, c := range []struct {
		name, query, code, field string
	}{
		{"offset too", "period=all&offset=1&after=" + next, "bad_parameter", "offset"},
		{"an empty cursor", "period=all&after=", "invalid_cursor", "after"},
		{"not a cursor", "period=all&after=ann", "invalid_cursor", "after"},
		{"too long", "period=all&after=" + strings.Repeat("A", 5000), "invalid_cursor", "after"},
		{"another board's", "period=all&after=" + goNext, "invalid_cursor", "after"},
		{"another period's", "period=week&after=" + next, "invalid_cursor", "after"},
	} {
		status, out, _ := f.Call("GET", "/api/v1/boards/chess/entries?"+c.query, "", "")
		if status != 400 || webtest.ErrCode(out) != c.code || webtest.ErrField(out) != c.field {
			t.Errorf("%s: %d %v", c.name, status, out)
		}
	}
	key := f.Key("reader", "chess")
	for _, k := range []string{"", key} {
		if pg := getPage(t, f, "/api/v1/boards/chess/entries?period=all&limit=5&after="+next, k); strings.Join(pg.members, " ") != "bob cat" || pg.offset != 1 || pg.next != "" {
			t.Errorf("after ann, key %q: %+v", k, pg)
		}
	}
}

// TestCursorPrivacy: on a board that shows its top two as pseudonyms, a
// walk without a key ends at the top two, and no cursor, not even one a
// key's reader got further down, opens a place beyond them; cursors hold
// no pupil's id or name, and a board that hides names only is walked
// whole, as stand-ins.
func TestCursorPrivacy(t *testing.T) {
	f := webtest.New(t)
	scores := map[string]float64{"zz-ann": 5051, "zz-bob": 4041, "zz-cat": 3031, "zz-dan": 2021, "zz-eve": 1011}
	f.Board(board.Board{ID: "class", Title: "Class", Names: board.Pseudonyms, TopOnly: 2}, scores)
	f.Board(board.Board{ID: "masked", Title: "Masked", Names: board.Pseudonyms}, scores)
	key := f.Key("teacher", "")
	const base = "/api/v1/boards/class/entries?period=all&limit=1"
	leaks := func(where string, pg walkPage) {
		t.Helper()
		for _, m := range pg.members {
			if !strings.HasPrefix(m, "anon-") {
				t.Errorf("%s shows %q", where, m)
			}
		}
		for _, s := range []string{"zz-", "ann", "bob", "cat", "dan", "eve"} {
			if strings.Contains(pg.next, s) {
				t.Errorf("%s: the cursor %q holds %q", where, pg.next, s)
			}
		}
	}
	first := getPage(t, f, base, "")
	leaks("the first page", first)
	second := getPage(t, f, base+"&after="+first.next, "")
	leaks("the second page", second)
	if len(second.members) != 1 || second.offset != 1 || second.total != 2 || second.next != "" {
		t.Fatalf("the second page of the top two: %+v", second)
	}
	// A key's reader goes on past the top; its cursors open nothing more
	// to a reader without a key.
	full := getPage(t, f, "/api/v1/boards/class/entries?period=all&limit=3", key)
	if strings.Join(full.members, " ") != "zz-ann zz-bob zz-cat" || full.next == "" {
		t.Fatalf("with a key: %+v", full)
	}
	if pg := getPage(t, f, base+"&after="+full.next, ""); len(pg.members) != 0 || pg.next != "" || pg.total != 2 {
		t.Errorf("a key's cursor past the top, without a key: %+v", pg)
	}
	if pg := getPage(t, f, base+"&after="+full.next, key); strings.Join(pg.members, " ") != "zz-dan" || pg.next == "" {
		t.Errorf("a key's cursor past the top, with the key: %+v", pg)
	}
	keyFirst := getPage(t, f, base, key)
	if pg := getPage(t, f, base+"&after="+keyFirst.next, ""); len(pg.members) != 1 || pg.members[0] != second.members[0] || pg.next != "" {
		t.Errorf("a key's cursor in the top, without a key: %+v, want %v", pg, second.members)
	}
	// Names hidden, every place shown: the whole board, as stand-ins.
	var walked []string
	pg := getPage(t, f, "/api/v1/boards/masked/entries?period=all&limit=2", "")
	for {
		leaks("the masked board", pg)
		walked = append(walked, pg.members...)
		if pg.next == "" {
			break
		}
		pg = getPage(t, f, "/api/v1/boards/masked/entries?period=all&limit=2&after="+pg.next, "")
	}
	if len(walked) != 5 {
		t.Errorf("the masked board walked: %v", walked)
	}
}
