package pages_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestTVPage: the wall display shows each asked board in each asked period
// it keeps (e2e/TestTVCyclesLive watches it live); a bad query gets a clear
// error.
func TestTVPage(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "arcade", Title: "Arcade", Periods: []board.Kind{board.Weekly, board.AllTime}}, map[string]float64{"ann": 10})
	f.Board(board.Board{ID: "golf", Title: "Golf", Periods: []board.Kind{board.AllTime}}, map[string]float64{"bob": 70})

	res, body := f.Get("/tv?boards=arcade,golf&periods=week,all&every=20&limit=5")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", res.StatusCode, webtest.Excerpt(body))
	}
	// Arcade this week and all time; Golf keeps no week, so all time only.
	if n := strings.Count(body, `data-testid="tv-screen"`); n != 3 {
		t.Fatalf("%d screens, want 3:\n%s", n, webtest.Excerpt(body))
	}
	for _, want := range []string{`data-every="20"`, `data-rows="5"`, "Golf", "ann", "bob", "Week "} {
		if !strings.Contains(body, want) {
			t.Errorf("the display has no %s", want)
		}
	}
	// Without boards named, every board, each in its default period.
	if _, all := f.Get("/tv"); strings.Count(all, `data-testid="tv-screen"`) != 2 {
		t.Errorf("/tv shows %d screens, want one per board", strings.Count(all, `data-testid="tv-screen"`))
	}

	for _, c := range []struct {
		query, status, says string
	}{
		{"?boards=nope", "404", "no board called"},
		{"?periods=fortnight", "400", "not a period"},
		{"?every=1", "400", "every"},
		{"?limit=500", "400", "limit"},
		{"?theme=neon", "400", "theme"},
		{"?boards=golf&periods=week", "404", "None of these boards keeps"},
	} {
		res, body := f.Get("/tv" + c.query)
		if got := res.Status[:3]; got != c.status || !strings.Contains(body, c.says) {
			t.Errorf("/tv%s: %s, %q; want %s saying %q", c.query, got, webtest.Excerpt(body), c.status, c.says)
		}
	}
}

// TestTVDefaultsToTheFirstBoards: a site with more boards than a display
// shows gets the first ones, in the home page's order, not an error; naming
// too many is still refused.
func TestTVDefaultsToTheFirstBoards(t *testing.T) {
	f := webtest.New(t)
	var ids []string
	for i := range maxScreens + 2 {
		id := fmt.Sprintf("b%02d", i)
		ids = append(ids, id)
		f.Board(board.Board{ID: id, Title: fmt.Sprintf("Board %02d", i)}, map[string]float64{"ann": 1})
	}
	res, body := f.Get("/tv")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/tv with %d boards: %d %s", len(ids), res.StatusCode, webtest.Excerpt(body))
	}
	if n := strings.Count(body, `data-testid="tv-screen"`); n != maxScreens {
		t.Errorf("%d screens, want %d", n, maxScreens)
	}
	if !strings.Contains(body, "Board 00") || !strings.Contains(body, fmt.Sprintf("Board %02d", maxScreens-1)) || strings.Contains(body, fmt.Sprintf("Board %02d", maxScreens)) {
		t.Errorf("not the first %d boards in the home page's order", maxScreens)
	}
	res, body = f.Get("/tv?boards=" + strings.Join(ids, ","))
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "at most 24") {
		t.Errorf("naming %d boards: %d %s", len(ids), res.StatusCode, webtest.Excerpt(body))
	}
}

const maxScreens = 24
