package pages_test

import (
	"context"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestRacePage: the board page links to its period's race; the race page
// draws a line per member of the top with points, lists each point in its
// table, and the chart alone comes from /race/chart; a rolling window has
// no race.
func TestRacePage(t *testing.T) {
	f := webtest.New(t)
	b := f.Board(board.Board{ID: "quiz", Title: "Quiz", Periods: []board.Kind{board.Weekly, board.AllTime, board.Last7d}},
		map[string]float64{"ann": 10, "bob": 20})
	if _, err := f.Store.Submit(context.Background(), b.ID, board.Submission{Member: "ann", Name: "Ann Arbor", Score: 15, Op: board.Incr}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, page := f.Get("/b/quiz?period=week"); !strings.Contains(page, `href="/b/quiz/race?period=week"`) {
		t.Fatal("the board page does not link its race")
	}
	res, page := f.Get("/b/quiz/race?period=week")
	if res.StatusCode != 200 || strings.Count(page, `data-testid="race-line"`) != 2 || strings.Count(page, `data-testid="race-row"`) != 3 ||
		!strings.Contains(page, "Ann Arbor") || !strings.Contains(page, `data-race-src="/b/quiz/race/chart?period=week"`) {
		t.Fatalf("race page %d:\n%s", res.StatusCode, page)
	}
	res, part := f.Get("/b/quiz/race/chart?period=week")
	if res.StatusCode != 200 || strings.Contains(part, "<html") || strings.Count(part, `data-testid="race-line"`) != 2 {
		t.Fatalf("chart fragment %d:\n%s", res.StatusCode, part)
	}
	if res, _ := f.Get("/b/quiz/race?period=last7d"); res.StatusCode != 404 {
		t.Fatalf("a rolling window's race: %d", res.StatusCode)
	}
}

// TestRacePrivacy: a board that shows initials and its top two only draws
// those two, named by their initials; no id or name of anyone leaks into
// the page or the chart.
func TestRacePrivacy(t *testing.T) {
	f := webtest.New(t)
	b := f.Board(board.Board{ID: "class", Title: "Class", Names: board.Initials, TopOnly: 2}, nil)
	for _, s := range []board.Submission{{Member: "alice-id", Name: "Alice Liddell", Score: 30}, {Member: "bob-id", Name: "Bob Smith", Score: 20}, {Member: "carol-id", Name: "Carol Jones", Score: 10}} {
		s.Op = board.Set
		if _, err := f.Store.Submit(context.Background(), b.ID, s, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"/b/class/race", "/b/class/race/chart"} {
		res, page := f.Get(path)
		if res.StatusCode != 200 || strings.Count(page, `data-testid="race-line"`) != 2 || !strings.Contains(page, "A. L.") || !strings.Contains(page, "B. S.") {
			t.Fatalf("%s %d:\n%s", path, res.StatusCode, page)
		}
		for _, secret := range []string{"alice-id", "Alice", "bob-id", "Bob", "carol", "Carol", "C. J."} {
			if strings.Contains(page, secret) {
				t.Fatalf("%s shows %q", path, secret)
			}
		}
	}
}
