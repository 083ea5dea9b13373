package pages_test

import (
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestCustomPeriodPages: a board on its own schedule shows the round in
// progress by its name, links the round before (and from there the one
// after), and names a past round by its key's title.
func TestCustomPeriodPages(t *testing.T) {
	f := webtest.New(t)
	b := f.Board(board.Board{ID: "heats", Title: "Heats", Periods: []board.Kind{board.Custom, board.AllTime}, DefaultPeriod: board.Custom,
		TimeZone: "Europe/Paris", Schedule: "every 72h from 2026-12-01T00:00", ScheduleName: "Heat"}, map[string]float64{"ann": 3})
	cur := b.Current(board.Custom, webtest.Now)
	prev := cur.Prev()
	_, body := f.Get("/b/heats")
	for _, want := range []string{`>This heat</a>`, cur.Title(), `href="/b/heats?at=` + prev.Key + `&amp;period=custom"`, `data-member="ann"`} {
		if !strings.Contains(body, want) {
			t.Fatalf("the heat in progress lacks %s:\n%s", want, webtest.Excerpt(body))
		}
	}
	_, body = f.Get("/b/heats?period=custom&at=" + prev.Key)
	for _, want := range []string{prev.Title(), `href="/b/heats?period=custom"`} {
		if !strings.Contains(body, want) {
			t.Fatalf("the heat before lacks %s:\n%s", want, webtest.Excerpt(body))
		}
	}
	if strings.Contains(body, `data-member="ann"`) {
		t.Fatal("the heat before shows this heat's score")
	}
	if res, _ := f.Get("/b/heats?period=custom&at=2026-W47"); res.StatusCode != 404 {
		t.Fatalf("a week's key for a heat: %d", res.StatusCode)
	}
}

// TestCustomPeriodWinners: the past winners of a board's own schedule are
// named by its periods' name, in the plural.
func TestCustomPeriodWinners(t *testing.T) {
	f := webtest.New(t, webtest.Archive())
	for _, c := range []struct{ name, tab string }{{"", "Rounds"}, {"Match", "Matches"}, {"Qualy", "Qualies"}, {"GP", "GPs"}, {"Heat", "Heats"}} {
		id := "w" + strings.ToLower(c.name)
		f.Board(board.Board{ID: id, Title: "W", Periods: []board.Kind{board.Weekly, board.Custom}, Schedule: "0 18 * * FRI", ScheduleName: c.name}, map[string]float64{"ann": 3})
		res, body := f.Get("/b/" + id + "/winners?period=custom")
		if res.StatusCode != 200 || !strings.Contains(body, ">"+c.tab+"<") || !strings.Contains(body, ">Weeks<") {
			t.Fatalf("%q: %d\n%s", c.name, res.StatusCode, webtest.Excerpt(body))
		}
	}
}
