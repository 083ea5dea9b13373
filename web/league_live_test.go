package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/board"
	"podium/internal/webtest"
)

// TestLiveCohortView: a league cohort's socket (?segment=L:<tier>/<cohort>,
// as the cohort page asks) gets the cohort's members ranked among
// themselves, each row's last field its rank on the week; a score in the
// cohort shows up. Only a cohort the board's league holds, in a period of
// the league's kind, is followed: anything else is refused before any
// upgrade.
func TestLiveCohortView(t *testing.T) {
	f := webtest.New(t, webtest.Live())
	f.Board(board.Board{ID: "lg", Title: "League", Periods: []board.Kind{board.Weekly, board.AllTime},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver"}, CohortSize: 2, Promote: 1, Relegate: 1}}, nil)
	f.Board(board.Board{ID: "plain", Title: "Plain", Periods: []board.Kind{board.Weekly}}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	by := board.Author{Actor: "test"}
	submit := func(m string, score float64) {
		t.Helper()
		if _, err := f.Store.Submit(ctx, "lg", board.Submission{Member: m, Score: score, Op: board.Set}, by); err != nil {
			t.Fatal(err)
		}
	}
	submit("ann", 30)
	submit("bob", 20)
	submit("cat", 40) // the first cohort is full: cat opens the second
	base := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?board="
	ws := dialFrames(ctx, t, base+"lg&period=week&segment=L:0/1")
	ws.next("the snapshot", `"total":2`, `"m":"ann","n":"ann","r":1,`, `"f":["2"]`, `"m":"bob","n":"bob","r":2,`, `"f":["3"]`)
	submit("bob", 50)
	ws.next("bob passing ann", `"m":"bob"`, `"r":1`, `"f":["1"]`)

	for _, c := range []struct{ query, why string }{
		{"lg&period=week&segment=L:2/1", "a tier the league lacks"},
		{"lg&period=week&segment=L:0/0", "cohort 0"},
		{"lg&period=week&segment=L:zero", "not a cohort"},
		{"lg&period=all&segment=L:0/1", "a period of another kind"},
		{"plain&period=week&segment=L:0/1", "a board without a league"},
		{"lg&period=week&segment=L:0/1&member=ann", "around-me in a cohort"},
	} {
		if _, res, err := websocket.Dial(ctx, base+c.query, nil); err == nil || res == nil || res.StatusCode/100 != 4 {
			t.Errorf("%s: err %v, answer %v", c.why, err, res)
		} else if res.StatusCode == http.StatusSwitchingProtocols {
			t.Errorf("%s: upgraded", c.why)
		}
	}
}
