package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/board"
	"podium/internal/webtest"
	"podium/web/request"
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

// TestLiveListViewPrivacyModeLater: a compare page's socket of a board that
// gets a privacy mode while it is open shows nothing more, not even how
// many members the period holds (top_only hides the count), and its guard
// closes it (1008) within about a second.
func TestLiveListViewPrivacyModeLater(t *testing.T) {
	f := webtest.New(t, webtest.Live())
	f.Board(board.Board{ID: "later", Title: "Later"}, map[string]float64{"ann": 30, "bob": 20, "cat": 10, "dan": 5})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(f.URL, "http")+"/live?period=all&board=later&list=cat&list=dan", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if _, fr, err := ws.Read(ctx); err != nil || !strings.Contains(string(fr), `"m":"cat"`) {
		t.Fatalf("first frame: %v %s", err, fr)
	}
	b := f.MustBoard(t, "later")
	b.TopOnly = 1
	if _, err := f.Store.UpdateBoard(ctx, *b); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Store.Submit(ctx, "later", board.Submission{Member: "eve", Score: 1, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	for {
		_, fr, err := ws.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
				t.Fatalf("socket ended with %v, want 1008 (the board now limits its reader)", err)
			}
			return
		}
		for _, leak := range []string{`"m":"cat"`, `"m":"dan"`, `"total":4`, `"total":5`} {
			if strings.Contains(string(fr), leak) {
				t.Errorf("a frame after the privacy mode shows %s: %s", leak, fr)
			}
		}
	}
}

// TestLiveListViewPersonalLinkOnly: on a private board without a privacy
// mode, a personal link that is the reader's only access opens no other
// member: the compare page answers the others as unranked, and it offers
// no socket that would rank them, nor does /live open one; a list of the
// link's own member alone follows.
func TestLiveListViewPersonalLinkOnly(t *testing.T) {
	f := webtest.New(t, webtest.Live())
	f.Board(board.Board{ID: "club", Title: "Club", Visibility: board.Private}, map[string]float64{"ann": 30, "bob": 20})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, token, err := f.Admin.Links.CreatePersonal(ctx, "club", f.MustBoard(t, "club").Created, "ann", "", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	hdr := http.Header{"Cookie": {request.LinkCookie("club") + "=" + token}}
	req, _ := http.NewRequestWithContext(ctx, "GET", f.URL+"/b/club/among?period=all&member=bob&member=ann", nil)
	req.Header = hdr
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || strings.Contains(string(page), "data-live=") {
		t.Errorf("the compare page with a personal link: %d, live %v", res.StatusCode, strings.Contains(string(page), "data-live="))
	}
	base := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?period=all&board=club"
	if _, res, err := websocket.Dial(ctx, base+"&list=ann&list=bob", &websocket.DialOptions{HTTPHeader: hdr}); err == nil || res == nil || res.StatusCode != http.StatusNotFound {
		t.Fatalf("a list with another member through a personal link: err %v, answer %v", err, res)
	}
	ws, _, err := websocket.Dial(ctx, base+"&list=ann", &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if _, fr, err := ws.Read(ctx); err != nil || !strings.Contains(string(fr), `"m":"ann"`) {
		t.Fatalf("the link's own member: %v %s", err, fr)
	}
}

// TestLiveListViewsShared: lists of the same members in another order are
// one view in the hub (one read a tick), so a client cannot make views by
// reordering a list.
func TestLiveListViewsShared(t *testing.T) {
	f := webtest.New(t, webtest.Live())
	f.Board(board.Board{ID: "same", Title: "Same"}, map[string]float64{"ann": 30, "bob": 20, "cat": 10})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	base := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?period=all&board=same"
	for _, list := range []string{"&list=cat&list=bob&list=ann", "&list=ann&list=cat&list=bob"} {
		ws, _, err := websocket.Dial(ctx, base+list, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		if _, fr, err := ws.Read(ctx); err != nil || !strings.Contains(string(fr), `"m":"cat"`) {
			t.Fatalf("%s: %v %s", list, err, fr)
		}
	}
	if st := f.App.Hub.Stats(); st.Clients != 2 || st.Views != 1 {
		t.Errorf("two sockets of one list in two orders: %d clients, %d views", st.Clients, st.Views)
	}
}
