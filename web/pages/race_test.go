package pages_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"podium/archive"
	"podium/board"
	"podium/internal/webtest"
	"podium/redisstore"
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

// TestRaceReplaysFromTheArchive: a closed week's race page, once the
// week's keys have expired to the archive, draws the race it closed with.
func TestRaceReplaysFromTheArchive(t *testing.T) {
	ctx := context.Background()
	f := webtest.New(t, webtest.Archive(), webtest.Clock(time.Now))
	lastWeek := time.Now().UTC().AddDate(0, 0, -14)
	past := redisstore.NewStore(f.Redis, redisstore.WithClock(func() time.Time { return lastWeek }))
	b, err := past.CreateBoard(ctx, board.Board{ID: "ctf", Title: "CTF", Periods: []board.Kind{board.Weekly, board.AllTime}, Retention: 0})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []board.Submission{{Member: "ann", Score: 100}, {Member: "bob", Score: 150}, {Member: "ann", Score: 200}} {
		s.Op = board.Set
		if _, err := past.Submit(ctx, b.ID, s, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	week := b.Current(board.Weekly, lastWeek)
	path := "/b/ctf/race?" + url.Values{"period": {"week"}, "at": {week.Key}}.Encode()
	_, before := f.Get(path)
	a := &archive.Archiver{Store: f.Store, DB: f.App.Archive, Log: webtest.Quiet, Linger: time.Millisecond}
	if _, err := a.Due(ctx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); f.Redis.Exists(ctx, redisstore.RaceKey(b.ID, week)).Val() == 1; {
		if time.Now().After(deadline) {
			t.Fatal("the week's race outlived its keys")
		}
		time.Sleep(5 * time.Millisecond)
	}
	res, after := f.Get(path)
	if res.StatusCode != 200 || strings.Count(after, `data-testid="race-row"`) != 3 || strings.Count(after, `data-testid="race-line"`) != 2 {
		t.Fatalf("the archived race %d:\n%s", res.StatusCode, after)
	}
	chart := func(page string) string {
		_, svg, _ := strings.Cut(page, "<svg")
		svg, _, _ = strings.Cut(svg, "</svg>")
		return svg
	}
	if chart(before) != chart(after) {
		t.Fatalf("the archived race is drawn otherwise:\n%s\nwas\n%s", chart(after), chart(before))
	}
}

// TestRaceFrozen: while the board is frozen the race page draws the
// freeze's top up to the freeze and says so; the reveal draws the rest.
func TestRaceFrozen(t *testing.T) {
	ctx := context.Background()
	f := webtest.New(t, webtest.Clock(time.Now), webtest.StoreOptions(redisstore.WithDefinitionTTL(0)))
	b := f.Board(board.Board{ID: "cup", Title: "Cup"}, map[string]float64{"ann": 10, "bob": 20})
	if _, err := f.Store.Freeze(ctx, b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Store.Submit(ctx, b.ID, board.Submission{Member: "zed", Name: "Zed Zebra", Score: 99, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/b/cup/race", "/b/cup/race/chart"} {
		_, page := f.Get(path)
		if !strings.Contains(page, `data-testid="race-note"`) || strings.Count(page, `data-testid="race-row"`) != 2 || strings.Contains(page, "Zed") || strings.Contains(page, "zed") {
			t.Fatalf("%s while frozen:\n%s", path, page)
		}
	}
	if _, err := f.Store.Unfreeze(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, page := f.Get("/b/cup/race/chart"); strings.Contains(page, `data-testid="race-note"`) || strings.Count(page, `data-testid="race-row"`) != 3 || !strings.Contains(page, "Zed Zebra") {
		t.Fatalf("the chart after the reveal:\n%s", page)
	}
}
