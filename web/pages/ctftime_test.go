package pages_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
)

// ctftimeFeed reads a CTFtime feed as CTFtime would, numbers as written.
func ctftimeFeed(t *testing.T, f *webtest.Server, path string) string {
	t.Helper()
	res, body := f.Get(path)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%s: %d %s\n%s", path, res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	var feed struct {
		Standings []struct {
			Pos   int         `json:"pos"`
			Team  string      `json:"team"`
			Score json.Number `json:"score"`
		} `json:"standings"`
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&feed); err != nil || feed.Standings == nil {
		t.Fatalf("%s is not a CTFtime feed: %v\n%s", path, err, body)
	}
	var out []string
	for _, s := range feed.Standings {
		out = append(out, strings.Join([]string{string(rune('0' + s.Pos)), s.Team, s.Score.String()}, " "))
	}
	return strings.Join(out, ", ")
}

// TestCTFtimeFeed: positions are the board's ranks (ties share one),
// scores numbers in the board's unit, names as the board shows them; a
// team board lists its teams; a frozen board's feed is the freeze's; a
// period is asked for as on the board page; a private board is a 404.
func TestCTFtimeFeed(t *testing.T) {
	f := webtest.New(t, webtest.Clock(time.Now))
	ctx := context.Background()
	by := board.Author{Actor: "test"}
	submit := func(id string, s board.Submission) {
		t.Helper()
		if s.Op == "" {
			s.Op = board.Set
		}
		if _, err := f.Store.Submit(ctx, id, s, by); err != nil {
			t.Fatal(err)
		}
	}
	f.Board(board.Board{ID: "ctf", Title: "CTF", Format: board.Format{Type: board.Decimal, Decimals: 2}, Periods: []board.Kind{board.Weekly, board.AllTime}}, nil)
	submit("ctf", board.Submission{Member: "rev", Name: "Reversers", Score: 12345})
	submit("ctf", board.Submission{Member: "pwn", Name: "Pwners", Score: 12345})
	submit("ctf", board.Submission{Member: "web", Score: 500})
	if got, want := ctftimeFeed(t, f, "/b/ctf/ctftime.json"), "1 Reversers 123.45, 1 Pwners 123.45, 3 web 5"; got != want {
		t.Fatalf("feed %q, want %q", got, want)
	}
	if got := ctftimeFeed(t, f, "/b/ctf/ctftime.json?period=week"); !strings.HasPrefix(got, "1 Reversers") {
		t.Fatalf("this week's feed %q", got)
	}
	if got := ctftimeFeed(t, f, "/b/ctf/ctftime.json?period=week&at=2020-W02"); got != "" {
		t.Fatalf("a week with no scores: %q", got)
	}

	f.Board(board.Board{ID: "league", Title: "League", Teams: board.TeamsSum}, nil)
	submit("league", board.Submission{Member: "ann", Team: "red", Score: 10})
	submit("league", board.Submission{Member: "bob", Team: "red", Score: 5})
	submit("league", board.Submission{Member: "cat", Team: "blue", Score: 20})
	if got, want := ctftimeFeed(t, f, "/b/league/ctftime.json"), "1 blue 20, 2 red 15"; got != want {
		t.Fatalf("team feed %q, want %q", got, want)
	}

	f.Board(board.Board{ID: "class", Title: "Class", Names: board.Initials, TopOnly: 2}, nil)
	submit("class", board.Submission{Member: "alice-id", Name: "Alice Liddell", Score: 30})
	submit("class", board.Submission{Member: "bob-id", Name: "Bob Smith", Score: 20})
	submit("class", board.Submission{Member: "carol-id", Name: "Carol Jones", Score: 10})
	if got, want := ctftimeFeed(t, f, "/b/class/ctftime.json"), "1 A. L. 30, 2 B. S. 20"; got != want {
		t.Fatalf("a privacy mode's feed %q, want %q", got, want)
	}

	if _, err := f.Store.Freeze(ctx, "ctf", time.Time{}); err != nil {
		t.Fatal(err)
	}
	submit("ctf", board.Submission{Member: "web", Score: 99900})
	if got, want := ctftimeFeed(t, f, "/b/ctf/ctftime.json"), "1 Reversers 123.45, 1 Pwners 123.45, 3 web 5"; got != want {
		t.Fatalf("a frozen board's feed %q, want the freeze's %q", got, want)
	}

	f.Board(board.Board{ID: "hidden", Title: "Hidden", Visibility: board.Private}, map[string]float64{"ann": 1})
	hidden, _ := f.Get("/b/hidden/ctftime.json")
	unknown, _ := f.Get("/b/nope/ctftime.json")
	if hidden.StatusCode != 404 || unknown.StatusCode != 404 {
		t.Fatalf("a private board's feed: %d (an unknown board's: %d)", hidden.StatusCode, unknown.StatusCode)
	}
}
