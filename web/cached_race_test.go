package web_test

import (
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestCachedRaceChart: every open race page fetches its chart again at
// each live frame, all at once; the fragment's race (up to 2,000 points)
// comes from the read cache as its top does, and a write behind the
// replica's back (FCALL, another replica) shows in it within the bound.
func TestCachedRaceChart(t *testing.T) {
	f := webtest.New(t, webtest.Live())
	f.Board(board.Board{ID: "relay", Title: "Relay"}, nil)
	submit := func(member string, v float64) {
		t.Helper()
		if _, err := f.Store.Submit(t.Context(), "relay", board.Submission{Member: member, Score: v, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	submit("ann", 30)
	waitFor(t, "the hub to be fresh", f.App.Hub.Fresh)
	chart := func() string {
		t.Helper()
		res, body := f.Get("/b/relay/race/chart")
		if res.StatusCode != 200 {
			t.Fatalf("chart: %d %s", res.StatusCode, body)
		}
		return body
	}
	// A busy machine may delay the hub's pongs past a tick, when the cache
	// serves nothing older than a tick: wait for two fetches within it.
	var got uint64
	waitFor(t, "a second fetch of the chart served from the cache (its top and its race)", func() bool {
		chart()
		hits := f.App.Cache.Stats().Hits
		if body := chart(); !strings.Contains(body, `data-points="1"`) {
			t.Fatalf("chart: %s", body)
		}
		got = f.App.Cache.Stats().Hits - hits
		return got == 2
	})
	if err := f.Redis.FCall(t.Context(), "podium_submit", []string{"lb:{relay}:def"}, "bob", "set", "40").Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "an outside write in the chart", func() bool { return strings.Contains(chart(), `data-points="2"`) })
}
