package pages_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
	"podium/redisstore"
)

// segmentRows reads a segment page's table as "member:rank/board" words.
func segmentRows(body string) string {
	re := regexp.MustCompile(`(?s)data-member="([^"]+)" data-rank="(\d+)".*?<td class="field">([^<]*)</td>\s*<td class="score"`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1]+":"+m[2]+"/"+m[3])
	}
	return strings.Join(out, " ")
}

// segmentBoard makes a board with a country attribute: eve 60 SE, ann 50
// NO, bob 40 SE, cat 40 NO, dan 30 NO.
func segmentBoard(t *testing.T, f *webtest.Server, def board.Board) {
	t.Helper()
	def.Segments = []string{"country"}
	f.Board(def, nil)
	for _, s := range []struct {
		m, c  string
		score float64
	}{{"eve", "SE", 60}, {"ann", "NO", 50}, {"bob", "SE", 40}, {"cat", "NO", 40}, {"dan", "NO", 30}} {
		sub := board.Submission{Member: s.m, Score: s.score, Op: board.Set, Segments: map[string]string{"country": s.c}}
		if _, err := f.Store.Submit(context.Background(), def.ID, sub, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSegmentPage: ?segment= ranks the period's members holding a value
// among themselves, with their board rank beside; the title, the picker,
// the tabs, the pages and the live view keep the filter; a bad filter is a
// page that says why.
func TestSegmentPage(t *testing.T) {
	f := webtest.New(t, webtest.Live())
	segmentBoard(t, f, board.Board{ID: "geo", Title: "Geo", Periods: []board.Kind{board.AllTime, board.Weekly}})
	res, body := f.Get("/b/geo?period=all&segment=country:NO")
	if got := segmentRows(body); res.StatusCode != 200 || got != "ann:1/2 cat:2/3 dan:3/5" {
		t.Fatalf("segment NO: %d %q\n%s", res.StatusCode, got, webtest.Excerpt(body))
	}
	for _, want := range []string{
		`<title>Geo · country NO`, `data-testid="segment-title">country NO</span>`, `<th scope="col" class="field">Board</th>`,
		`<option value="country:NO" selected>NO (3)</option>`, `<option value="country:SE">SE (2)</option>`,
		`data-live="board=geo&amp;limit=25&amp;offset=0&amp;period=all&amp;segment=country%3ANO"`,
		`href="/b/geo?period=week&amp;segment=country%3ANO"`, `3 members`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("segment page lacks %s\n%s", want, webtest.Excerpt(body))
		}
	}
	if strings.Contains(body, "data-live-recent") {
		t.Error("a segment's page shows the whole board's recent changes")
	}
	_, body = f.Get("/b/geo?period=all&segment=country:NO&size=2")
	if !strings.Contains(body, `href="/b/geo?period=all&amp;size=2&amp;page=2&amp;segment=country%3ANO"`) &&
		!strings.Contains(body, `href="/b/geo?page=2&amp;period=all&amp;size=2&amp;segment=country%3ANO"`) {
		t.Errorf("next page drops the segment\n%s", webtest.Excerpt(body))
	}
	if _, body = f.Get("/b/geo?period=all&segment=country:NO&size=2&page=2"); segmentRows(body) != "dan:3/5" {
		t.Errorf("page 2: %q", segmentRows(body))
	}
	if _, body = f.Get("/b/geo?period=all"); !strings.Contains(body, `<option value="" selected>Whole board</option>`) || strings.Contains(body, "Board</th>") {
		t.Errorf("the whole board: picker or column wrong\n%s", webtest.Excerpt(body))
	}
	for _, bad := range []string{"planet:x", "country", "country:%20NO"} {
		if res, body := f.Get("/b/geo?period=all&segment=" + bad); res.StatusCode/100 != 4 || !strings.Contains(body, "segment") {
			t.Errorf("segment=%s: %d\n%s", bad, res.StatusCode, webtest.Excerpt(body))
		}
	}
	if res, _ := f.Get("/b/geo?period=all&segment=country:NO&page=3&size=2"); res.StatusCode != 404 {
		t.Errorf("a page past the segment's last: %d", res.StatusCode)
	}
}

// TestSegmentPagePrivacy: a board that shows only its top shows, in a
// segment, those of its members among the top (as the API does), without
// counts; names stay hidden as the board says. A closed week whose keys
// went to the archive (which keeps no segments yet) is a page that says
// so, not an error.
func TestSegmentPagePrivacy(t *testing.T) {
	f := webtest.New(t)
	segmentBoard(t, f, board.Board{ID: "geotop", Title: "Geo top", TopOnly: 2, Names: board.Initials, Periods: []board.Kind{board.AllTime, board.Weekly}})
	res, body := f.Get("/b/geotop?period=all&segment=country:NO")
	if got := segmentRows(body); res.StatusCode != 200 || !regexp.MustCompile(`^[^ :]+:1/2$`).MatchString(got) || strings.Contains(got, "ann") {
		t.Errorf("top-only segment: %d %q\n%s", res.StatusCode, got, webtest.Excerpt(body))
	}
	if !strings.Contains(body, "1 place") || strings.Contains(body, "NO (3)") {
		t.Errorf("top-only segment counts members\n%s", webtest.Excerpt(body))
	}
	if err := webtest.Redis(t).HSet(t.Context(), redisstore.ArchiveState("geotop"), "week:2026-W40", "0 1"+redisstore.ExpiredMark).Err(); err != nil {
		t.Fatal(err)
	}
	res, body = f.Get("/b/geotop?period=week&at=2026-W40&segment=country:NO")
	if res.StatusCode != 410 || !strings.Contains(body, "no longer kept") || !strings.Contains(body, `href="/b/geotop?at=2026-W40&amp;period=week"`) {
		t.Errorf("an archived week's segment: %d\n%s", res.StatusCode, webtest.Excerpt(body))
	}
}

// TestMemberSegments: a member's page lists its values, each linking to
// its segment's page, and its rank within each per period.
func TestMemberSegments(t *testing.T) {
	f := webtest.New(t)
	segmentBoard(t, f, board.Board{ID: "geom", Title: "Geo", Periods: []board.Kind{board.AllTime}})
	res, body := f.Get("/b/geom/m/cat")
	flat := strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(body, " ")), " ")
	for _, want := range []string{`href="/b/geom?period=all&amp;segment=country%3ANO"`, `data-testid="member-segments"`} {
		if !strings.Contains(body, want) {
			t.Errorf("member page lacks %s\n%s", want, webtest.Excerpt(body))
		}
	}
	if res.StatusCode != 200 || !strings.Contains(flat, "country NO : 2nd of 3") {
		t.Errorf("cat's rank in NO: %d\n%s", res.StatusCode, flat)
	}
	if _, body := f.Get("/b/chess-nosegs/m/ann"); strings.Contains(body, "member-segments") {
		t.Error("segments shown on a board without any")
	}
}
