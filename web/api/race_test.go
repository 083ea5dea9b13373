package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
)

// raceAnswer reads GET /api/v1/boards/{b}/race as "member name: score,
// score, …" per line, and whether it says the board is frozen.
func raceAnswer(t *testing.T, f *webtest.Server, path, key string) (string, bool) {
	t.Helper()
	status, raw, _ := f.Send("GET", path, key, nil)
	var out struct {
		FrozenSince *time.Time `json:"frozen_since"`
		Lines       []struct {
			Member, Name string
			Points       []struct {
				Score json.Number
			}
		}
	}
	if status != 200 || json.Unmarshal([]byte(raw), &out) != nil {
		t.Fatalf("%s: %d %s", path, status, raw)
	}
	var lines []string
	for _, l := range out.Lines {
		var pts []string
		for _, p := range l.Points {
			pts = append(pts, p.Score.String())
		}
		lines = append(lines, l.Member+" "+l.Name+": "+strings.Join(pts, ", "))
	}
	return strings.Join(lines, "; "), out.FrozenSince != nil
}

// TestRaceAPI: the race names the top as the privacy mode shows it (its
// top place only, by initials, a stand-in id; an API key of the board sees
// everyone), and while the board is frozen it stops at the freeze.
func TestRaceAPI(t *testing.T) {
	f := webtest.New(t, webtest.Clock(time.Now))
	ctx := context.Background()
	f.Board(board.Board{ID: "class", Title: "Class", Names: board.Initials, TopOnly: 1}, nil)
	submit := func(member, name string, score float64) {
		t.Helper()
		if _, err := f.Store.Submit(ctx, "class", board.Submission{Member: member, Name: name, Score: score, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	submit("alice-id", "Alice Liddell", 10)
	submit("bob-id", "Bob Smith", 20)
	submit("alice-id", "", 30)
	got, _ := raceAnswer(t, f, "/api/v1/boards/class/race", "")
	if !strings.HasPrefix(got, "anon-") || !strings.HasSuffix(got, " A. L.: 10, 30") || strings.Contains(got, "bob") || strings.Contains(got, "alice") {
		t.Fatalf("public race %q", got)
	}
	if got, _ := raceAnswer(t, f, "/api/v1/boards/class/race", f.Key("reader", "class")); got != "alice-id Alice Liddell: 10, 30; bob-id Bob Smith: 20" {
		t.Fatalf("a key's race %q", got)
	}
	if _, err := f.Store.Freeze(ctx, "class", time.Time{}); err != nil {
		t.Fatal(err)
	}
	submit("alice-id", "", 40)
	got, frozen := raceAnswer(t, f, "/api/v1/boards/class/race", "")
	if !frozen || !strings.HasSuffix(got, " A. L.: 10, 30") {
		t.Fatalf("race while frozen %q (frozen %v)", got, frozen)
	}
}
