package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"podium/audit"
	"podium/board"
	"podium/internal/webtest"
	"podium/web/request"
)

// listed reads a ranks answer as "member:list_rank/rank" words, "member:-"
// for an unranked one, and the total.
func listed(t *testing.T, raw string) (string, int) {
	t.Helper()
	var out struct {
		Total   int
		Entries []struct {
			Member   string
			Ranked   bool
			ListRank int `json:"list_rank"`
			Rank     int
		}
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var words []string
	for _, e := range out.Entries {
		if e.Ranked {
			words = append(words, fmt.Sprintf("%s:%d/%d", e.Member, e.ListRank, e.Rank))
		} else {
			words = append(words, e.Member+":-")
		}
	}
	return strings.Join(words, " "), out.Total
}

// TestRanksAmongMembers: list ranks follow the board's rank style over the
// listed members (GET and POST agree); a member's friends are kept, read
// and ranked with the member; on a board with a privacy mode, a keyless
// reader learns nothing of another member, and a personal link sees its
// own member only, its friends' ids left out.
func TestRanksAmongMembers(t *testing.T) {
	f := webtest.New(t)
	scores := map[string]float64{"ann": 50, "bob": 40, "cat": 40, "dan": 30, "eve": 10}
	f.Board(board.Board{ID: "comp", Title: "Comp"}, scores)
	f.Board(board.Board{ID: "dense", Title: "Dense", RankStyle: board.Dense}, scores)
	key := f.Key("bot", "")
	for _, c := range []struct{ board, want string }{
		{"comp", "bob:1/2 cat:1/2 eve:3/5 zed:-"},
		{"dense", "bob:1/2 cat:1/2 eve:2/4 zed:-"},
	} {
		status, raw := f.RawCall("GET", "/api/v1/boards/"+c.board+"/ranks?member=zed&member=eve&member=cat&member=bob&member=eve", "", nil)
		got, total := listed(t, raw)
		if status != 200 || got != c.want || total != 5 {
			t.Errorf("%s GET: %d %s (total %d), want %s", c.board, status, got, total, c.want)
		}
		_, raw = f.RawCall("POST", "/api/v1/boards/"+c.board+"/ranks", "", strings.NewReader(`{"members":["zed","eve","cat","bob"],"period":"all"}`))
		if got, _ := listed(t, raw); got != c.want {
			t.Errorf("%s POST: %s, want %s", c.board, got, c.want)
		}
	}

	if status, raw := f.RawCall("PUT", "/api/v1/boards/comp/members/dan/friends", key, strings.NewReader(`{"friends":["eve","ann","zed"],"reason":"game friends"}`)); status != 200 || !strings.Contains(raw, `"friends":["ann","eve","zed"]`) {
		t.Fatalf("set friends: %d %s", status, raw)
	}
	if _, raw := f.RawCall("GET", "/api/v1/boards/comp/members/dan/friends", "", nil); !strings.Contains(raw, `"friends":["ann","eve","zed"]`) {
		t.Errorf("friends: %s", raw)
	}
	if _, raw := f.RawCall("GET", "/api/v1/boards/comp/members/dan/friends/ranks", "", nil); func() string { g, _ := listed(t, raw); return g }() != "ann:1/1 dan:2/4 eve:3/5 zed:-" {
		t.Errorf("friends ranks: %s", raw)
	}
	entries, _, err := f.Admin.Audit.List(context.Background(), audit.Filter{Board: "comp"}, "", 20)
	var friends []audit.Entry
	for _, e := range entries {
		if e.Action == "member.friends" {
			friends = append(friends, e)
		}
	}
	if err != nil || len(friends) != 1 || friends[0].Member != "dan" || friends[0].Reason != "game friends" || !strings.HasPrefix(friends[0].Actor, "key:bot") {
		t.Errorf("member.friends audit entries: %+v %v", friends, err)
	}

	// A board with a privacy mode: pseudonyms, top two shown.
	ctx := context.Background()
	class := f.Board(board.Board{ID: "class", Title: "Class", Names: board.Pseudonyms, TopOnly: 2}, scores)
	if _, _, err := f.Store.SetFriends(ctx, "class", "dan", []string{"ann", "eve"}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	_, token, err := f.Admin.Links.CreatePersonal(ctx, "class", class.Created, "dan", "", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	dan := []string{"Cookie", request.LinkCookie("class") + "=" + token}
	if _, raw := f.RawCall("GET", "/api/v1/boards/class/ranks?member=ann&member=dan&member=zed", "", nil); func() string { g, _ := listed(t, raw); return g }() != "ann:- dan:- zed:-" {
		t.Errorf("keyless, privacy mode: %s", raw)
	}
	if _, raw := f.RawCall("GET", "/api/v1/boards/class/ranks?member=ann&member=dan", key, nil); func() string { g, _ := listed(t, raw); return g }() != "ann:1/1 dan:2/4" {
		t.Errorf("with a key, privacy mode: %s", raw)
	}
	_, raw, _ := f.Send("GET", "/api/v1/boards/class/members/dan/friends/ranks", "", nil, dan...)
	if got, total := listed(t, raw); got != "dan:1/4" || total != 2 {
		t.Errorf("dan's link, friends ranks: %s (total %d)", got, total)
	}
	if _, raw, _ := f.Send("GET", "/api/v1/boards/class/members/dan/friends", "", nil, dan...); !strings.Contains(raw, `"friends":[]`) {
		t.Errorf("dan's link, friends: %s", raw)
	}
	if status, _ := f.RawCall("GET", "/api/v1/boards/class/members/dan/friends", "", nil); status != 404 {
		t.Errorf("keyless, another member's friends on a board with a privacy mode: %d", status)
	}
}

// TestFriendsKeys: only a key that may write to the board sets a member's
// friends: none is 401, a key of another board 403 (404 on a private
// board, as for an unknown one), a read-only key 403 read_only_key; none
// of them changes the list.
func TestFriendsKeys(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "open", Title: "Open"}, map[string]float64{"ann": 1})
	f.Board(board.Board{ID: "shut", Title: "Shut", Visibility: board.Private}, map[string]float64{"ann": 1})
	other := f.Key("other", "elsewhere")
	_, reader, err := f.Admin.Keys.Create(context.Background(), "reader", "", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		board, key string
		status     int
		code       string
	}{
		{"open", "", 401, "unauthorized"},
		{"open", other, 403, "forbidden"},
		{"shut", other, 404, "board_not_found"},
		{"open", reader, 403, "read_only_key"},
		{"shut", reader, 403, "read_only_key"},
	} {
		status, raw := f.RawCall("PUT", "/api/v1/boards/"+c.board+"/members/ann/friends", c.key, strings.NewReader(`{"friends":["bob"]}`))
		if status != c.status || !strings.Contains(raw, `"code":"`+c.code+`"`) {
			t.Errorf("%s with %q: %d %s, want %d %s", c.board, c.key, status, raw, c.status, c.code)
		}
	}
	for _, id := range []string{"open", "shut"} {
		if fs, err := f.Store.Friends(context.Background(), f.MustBoard(t, id), "ann"); err != nil || len(fs) > 0 {
			t.Errorf("%s: ann's friends %v %v", id, fs, err)
		}
	}
}
