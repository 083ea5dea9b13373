package pages_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
)

// TestContestCountdown: the board page, the widget and the wall display
// show a contest's clock as served, without script: to the opening, to the
// close, when it closed (in the board's zone, with the instant as a <time>),
// and on a frozen board, to its reveal; a board with nothing to count shows
// none.
func TestContestCountdown(t *testing.T) {
	f := webtest.New(t)
	now := webtest.Now
	for _, c := range []struct {
		name        string
		def         board.Board
		phase, want string // want: the line's words and its instant, as HTML
	}{
		{"before the opening", board.Board{OpensAt: now.Add(51 * time.Hour), ClosesAt: now.Add(60 * time.Hour)}, "opens",
			`<strong data-countdown-words>Opens in 2 d 3 h</strong> <span class="countdown-when"><span class="paren">(</span><time data-countdown-at datetime="2027-01-08T15:00:00Z">8 Jan 2027, 16:00 CET</time>`},
		{"open", board.Board{OpensAt: now.Add(-time.Hour), ClosesAt: now.Add(72 * time.Minute)}, "closes",
			`<strong data-countdown-words>Closes in 1 h 12 min</strong> <span class="countdown-when"><span class="paren">(</span><time data-countdown-at datetime="2027-01-06T13:12:00Z">6 Jan 2027, 14:12 CET</time>`},
		{"closed", board.Board{ClosesAt: now.Add(-90 * time.Minute)}, "closed",
			`<strong data-countdown-words>Closed at</strong> <span class="countdown-when"><span class="paren">(</span><time data-countdown-at datetime="2027-01-06T10:30:00Z">6 Jan 2027, 11:30 CET</time>`},
		{"open with no close", board.Board{OpensAt: now.Add(-time.Hour)}, "", `data-countdown-main data-testid="countdown-main" hidden`},
	} {
		t.Run(c.name, func(t *testing.T) {
			def := c.def
			def.ID, def.Title, def.TimeZone = strings.ReplaceAll(c.name, " ", "-"), "Cup", "Europe/Paris"
			b := f.Board(def, nil)
			for _, path := range []string{"/b/" + b.ID, "/embed/" + b.ID, "/tv?boards=" + b.ID} {
				_, page := f.Get(path)
				if !strings.Contains(page, `data-phase="`+c.phase+`"`) || !strings.Contains(page, c.want) {
					t.Errorf("%s: %s", path, webtest.Excerpt(page))
				}
				if !strings.Contains(page, `data-countdown-reveal data-testid="countdown-reveal" hidden`) {
					t.Errorf("%s shows a reveal's line on a board not frozen", path)
				}
			}
		})
	}

	// Frozen, with a reveal at a set time: its line shows too.
	ctx := context.Background()
	b := f.Board(board.Board{ID: "ctf", Title: "CTF", ClosesAt: now.Add(-time.Minute)}, nil)
	if _, err := f.Store.Freeze(ctx, b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Store.ScheduleReveal(ctx, b.ID, now.Add(45*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/b/ctf", "/embed/ctf", "/tv?boards=ctf"} {
		_, page := f.Get(path)
		if !strings.Contains(page, `data-countdown-reveal data-testid="countdown-reveal"><span class="countdown-icon" aria-hidden="true">⚑</span> <span class="countdown-text"><strong data-countdown-words>Results revealed in 45 min</strong>`) ||
			!strings.Contains(page, `<time datetime="2027-01-06T12:45:00Z">6 Jan 2027, 12:45 UTC</time>`) || !strings.Contains(page, "Closed at") {
			t.Errorf("%s: %s", path, webtest.Excerpt(page))
		}
	}

	// Nothing to count: the clock is there for live frames, hidden.
	f.Board(board.Board{ID: "plain", Title: "Plain"}, nil)
	if _, page := f.Get("/b/plain"); !strings.Contains(page, `data-countdown-main data-testid="countdown-main" hidden`) ||
		!strings.Contains(page, `data-countdown-reveal data-testid="countdown-reveal" hidden`) {
		t.Errorf("a board with no contest shows a clock: %s", webtest.Excerpt(page))
	}
}
