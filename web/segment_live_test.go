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

// TestLiveSegmentView: a segment page's socket (?segment=) gets the
// segment's members ranked among themselves, each row's last field its
// rank on the board; a member outside the segment passing them changes
// those; a member moved into the segment (which changes only the
// segment's keys) shows up. On a board that shows only its top, the
// segment shows its members among the top. A bad segment, or one with
// around-me, is refused before any upgrade.
func TestLiveSegmentView(t *testing.T) {
	f := webtest.New(t, webtest.Live())
	f.Board(board.Board{ID: "geo", Title: "Geo", Segments: []string{"country"}}, nil)
	f.Board(board.Board{ID: "geotop", Title: "Geo top", Segments: []string{"country"}, TopOnly: 2}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	by := board.Author{Actor: "test"}
	for _, id := range []string{"geo", "geotop"} {
		for _, s := range []struct {
			m, c  string
			score float64
		}{{"ann", "NO", 30}, {"bob", "SE", 20}, {"cat", "NO", 10}} {
			sub := board.Submission{Member: s.m, Score: s.score, Op: board.Set, Segments: map[string]string{"country": s.c}}
			if _, err := f.Store.Submit(ctx, id, sub, by); err != nil {
				t.Fatal(err)
			}
		}
	}
	base := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?period=all&board="
	ws := dialFrames(ctx, t, base+"geo&segment=country:NO")
	ws.next("the snapshot", `"total":2`, `"m":"ann","n":"ann","r":1,`, `"f":["1"]`, `"m":"cat","n":"cat","r":2,`, `"f":["3"]`)
	if _, err := f.Store.Submit(ctx, "geo", board.Submission{Member: "bob", Score: 40, Op: board.Set}, by); err != nil {
		t.Fatal(err)
	}
	ws.next("bob passing ann on the board", `"m":"ann"`, `"f":["2"]`)
	if _, _, err := f.Store.SetSegment(ctx, "geo", "bob", "country", "NO", by); err != nil {
		t.Fatal(err)
	}
	ws.next("bob moving into NO", `"m":"bob"`, `"r":1`, `"total":3`)

	top := dialFrames(ctx, t, base+"geotop&segment=country:NO")
	top.next("the top's part of the segment", `"total":1`, `"m":"ann"`)

	for _, c := range []struct{ query, why string }{
		{"geo&segment=planet:x", "an attribute the board lacks"},
		{"geo&segment=country", "no value"},
		{"geo&segment=country:NO&member=ann", "around-me in a segment"},
	} {
		if _, res, err := websocket.Dial(ctx, base+c.query, nil); err == nil || res == nil || res.StatusCode/100 != 4 {
			t.Errorf("%s: err %v, answer %v", c.why, err, res)
		} else if res.StatusCode == http.StatusSwitchingProtocols {
			t.Errorf("%s: upgraded", c.why)
		}
	}
}

// frames is a socket whose frames a test waits through.
type frames struct {
	t   *testing.T
	ctx context.Context
	ws  *websocket.Conn
}

func dialFrames(ctx context.Context, t *testing.T, u string) frames {
	t.Helper()
	ws, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return frames{t, ctx, ws}
}

// next waits for a frame holding every one of want, and fails with the
// last frame seen at the deadline.
func (f frames) next(what string, want ...string) {
	f.t.Helper()
	last := ""
	for {
		_, fr, err := f.ws.Read(f.ctx)
		if err != nil {
			f.t.Fatalf("waiting for %s: %v (last frame %s)", what, err, last)
		}
		last = string(fr)
		all := true
		for _, w := range want {
			all = all && strings.Contains(last, w)
		}
		if all {
			return
		}
	}
}
