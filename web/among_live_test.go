package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/board"
	"podium/internal/webtest"
)

// TestLiveListView: a compare page's socket (?list=) gets its members
// ranked among themselves, each row's field its board rank, and a frame
// when one of them moves, through the store or a plain ZINCRBY; a member
// outside the list moving past them changes their board ranks. A list on
// a board with a privacy mode, or longer than the live bound, is refused
// before any upgrade.
func TestLiveListView(t *testing.T) {
	f := webtest.New(t, webtest.Live())
	f.Board(board.Board{ID: "pals", Title: "Pals"}, map[string]float64{"ann": 30, "bob": 20, "cat": 10, "dan": 5})
	f.Board(board.Board{ID: "shy", Title: "Shy", Names: board.Initials}, map[string]float64{"ann": 3})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	base := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?period=all&board="
	ws, _, err := websocket.Dial(ctx, base+"pals&list=cat&list=bob&list=zed", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	next := func(what string, want ...string) {
		t.Helper()
		for {
			_, fr, err := ws.Read(ctx)
			if err != nil {
				t.Fatalf("waiting for %s: %v", what, err)
			}
			all := true
			for _, w := range want {
				all = all && strings.Contains(string(fr), w)
			}
			if all {
				return
			}
		}
	}
	next("the snapshot", `"m":"bob","n":"bob","r":1,`, `"f":["2"]`, `"m":"cat","n":"cat","r":2,`, `"f":["3"]`)
	if _, err := f.Store.Submit(ctx, "pals", board.Submission{Member: "cat", Score: 25, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	next("cat passing bob", `"m":"cat"`, `"r":1`)
	if err := f.Redis.ZIncrBy(ctx, "lb:{pals}:all", 100, "dan").Err(); err != nil {
		t.Fatal(err)
	}
	next("dan passing both on the board", `"f":["4"]`)

	for _, c := range []struct{ query, why string }{
		{"shy&list=ann", "a board with a privacy mode"},
		{"pals" + listOf(101), "a list over the bound"},
	} {
		if _, res, err := websocket.Dial(ctx, base+c.query, nil); err == nil || res == nil || res.StatusCode/100 != 4 {
			t.Errorf("%s: err %v, answer %v", c.why, err, res)
		} else if res.StatusCode == http.StatusSwitchingProtocols {
			t.Errorf("%s: upgraded", c.why)
		}
	}
}

// listOf is n distinct list parameters.
func listOf(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "&list=m%d", i)
	}
	return b.String()
}
