package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
	"podium/web/request"
)

func leagueDef(id string, mod func(*board.Board)) board.Board {
	b := board.Board{ID: id, Title: "Ladder " + id, Periods: []board.Kind{board.Weekly, board.AllTime},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: 3, Promote: 1, Relegate: 1}}
	if mod != nil {
		mod(&b)
	}
	return b
}

// cohortRows writes a cohort page's entries "member:rank/global_rank".
func cohortRows(t *testing.T, raw string) (string, int) {
	t.Helper()
	var pg struct {
		Total   int `json:"total"`
		Entries []struct {
			Member     string `json:"member"`
			Rank       int    `json:"rank"`
			GlobalRank int    `json:"global_rank"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(raw), &pg); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var out []string
	for _, e := range pg.Entries {
		out = append(out, fmt.Sprintf("%s:%d/%d", e.Member, e.Rank, e.GlobalRank))
	}
	return strings.Join(out, " "), pg.Total
}

// TestAPILeagues: the league and its cohorts, a cohort's standing (ranks
// within it, global ranks beside) and a member's league, in the current
// week by default; a board without a league is 404 no_league, another
// period kind 400 on period.
func TestAPILeagues(t *testing.T) {
	f := webtest.New(t)
	f.Board(leagueDef("lg", nil), nil)
	f.Board(board.Board{ID: "plain", Title: "Plain"}, map[string]float64{"ann": 1})
	ctx := context.Background()
	// Four in Bronze: the first cohort holds three, dan opens the second.
	for _, m := range []struct {
		id    string
		score float64
	}{{"ann", 5}, {"bob", 9}, {"cat", 5}, {"dan", 20}} {
		if _, err := f.Store.Submit(ctx, "lg", board.Submission{Member: m.id, Score: m.score}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}

	status, raw := f.RawCall("GET", "/api/v1/boards/lg/leagues", "", nil)
	for _, want := range []string{`"kind":"week"`, `"key":"2027-W01"`, `{"tier":0,"name":"Bronze","cohorts":[{"cohort":1,"members":3},{"cohort":2,"members":1}]}`,
		`{"tier":2,"name":"Gold","cohorts":[]}`, `"league":{"kind":"week","tiers":["Bronze","Silver","Gold"],"cohort_size":3,"promote":1,"relegate":1}`} {
		if status != 200 || !strings.Contains(raw, want) {
			t.Fatalf("leagues: %d %s, want %s", status, raw, want)
		}
	}
	status, raw = f.RawCall("GET", "/api/v1/boards/lg/leagues/0/1", "", nil)
	if got, total := cohortRows(t, raw); status != 200 || got != "bob:1/2 ann:2/3 cat:2/3" || total != 3 || !strings.Contains(raw, `"tier_name":"Bronze"`) {
		t.Fatalf("cohort 0/1: %d %s", status, raw)
	}
	if status, raw = f.RawCall("GET", "/api/v1/boards/lg/leagues/0/1?offset=1&limit=1", "", nil); !strings.Contains(raw, `"offset":1`) {
		t.Fatalf("cohort 0/1, second row: %d %s", status, raw)
	} else if got, _ := cohortRows(t, raw); got != "ann:2/3" {
		t.Fatalf("cohort 0/1, second row: %s", raw)
	}
	status, out, _ := f.Call("GET", "/api/v1/boards/lg/members/cat/league", "", "")
	if got := fmt.Sprintln(out["placed"], out["tier"], out["tier_name"], out["cohort"], out["rank"], out["size"], out["score"]); status != 200 || got != "true 0 Bronze 1 2 3 5\n" {
		t.Fatalf("cat's league: %d %v", status, out)
	}
	status, out, _ = f.Call("GET", "/api/v1/boards/lg/members/zed/league", "", "")
	if got := fmt.Sprintln(out["placed"], out["ranked"], out["tier"], out["tier_name"], out["cohort"]); status != 200 || got != "false false 0 Bronze <nil>\n" {
		t.Fatalf("zed's league: %d %v", status, out)
	}

	for _, c := range []struct {
		path, code, field string
		status            int
	}{
		{"/boards/plain/leagues", "no_league", "", 404},
		{"/boards/plain/leagues/0/1", "no_league", "", 404},
		{"/boards/plain/members/ann/league", "no_league", "", 404},
		{"/boards/lg/leagues?period=all", "bad_parameter", "period", 400},
		{"/boards/lg/leagues/0/1?period=all", "bad_parameter", "period", 400},
		{"/boards/lg/members/ann/league?period=all", "bad_parameter", "period", 400},
		{"/boards/lg/leagues?period=day", "period_not_found", "", 404},
		{"/boards/lg/leagues/x/1", "bad_parameter", "tier", 400},
		{"/boards/lg/leagues/0/0", "bad_parameter", "cohort", 400},
		{"/boards/lg/leagues/3/1", "cohort_not_found", "", 404},
	} {
		status, out, _ := f.Call("GET", "/api/v1"+c.path, "", "")
		e, _ := out["error"].(map[string]any)
		if status != c.status || e["code"] != c.code || (c.field != "" && e["field"] != c.field) {
			t.Errorf("%s: %d %v, want %d %s %s", c.path, status, out, c.status, c.code, c.field)
		}
	}
}

// TestAPILeaguesPrivacy: the league reads follow the board's access and
// privacy mode as the segment filter and the member reads do: a private
// board is an unknown board without access; on a board that shows only
// its top, under pseudonyms, a cohort shows its members among the top,
// masked, no member counts, and only the reader's own member's league
// opens (a personal link); a key sees everything.
func TestAPILeaguesPrivacy(t *testing.T) {
	f := webtest.New(t)
	ctx := context.Background()
	f.Board(leagueDef("shut", func(b *board.Board) { b.Visibility = board.Private }), map[string]float64{"ann": 1})
	top := f.Board(leagueDef("top", func(b *board.Board) { b.TopOnly, b.Names = 1, board.Pseudonyms }), nil)
	for _, m := range []struct {
		id    string
		score float64
	}{{"ann", 5}, {"bob", 9}, {"cat", 3}} {
		if _, err := f.Store.Submit(ctx, "top", board.Submission{Member: m.id, Score: m.score}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	_, unknown := f.RawCall("GET", "/api/v1/boards/nope/leagues", "", nil)
	for _, path := range []string{"/boards/shut/leagues", "/boards/shut/leagues/0/1", "/boards/shut/members/ann/league"} {
		status, raw := f.RawCall("GET", "/api/v1"+path, "", nil)
		if status != 404 || strings.ReplaceAll(raw, "shut", "nope") != unknown {
			t.Errorf("%s: %d %s, want as an unknown board's %s", path, status, raw, unknown)
		}
	}

	_, raw := f.RawCall("GET", "/api/v1/boards/top/leagues", "", nil)
	if !strings.Contains(raw, `"cohorts":[{"cohort":1}]`) {
		t.Errorf("top-only leagues: %s", raw)
	}
	_, raw = f.RawCall("GET", "/api/v1/boards/top/leagues/0/1", "", nil)
	if got, total := cohortRows(t, raw); total != 1 || !strings.HasPrefix(got, "anon-") || strings.Contains(raw, "bob") {
		t.Errorf("top-only cohort: %s", raw)
	}
	if status, _ := f.RawCall("GET", "/api/v1/boards/top/members/ann/league", "", nil); status != 404 {
		t.Errorf("top-only, another member's league: %d", status)
	}
	_, token, err := f.Admin.Links.CreatePersonal(ctx, "top", top.Created, "cat", "", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	status, raw, _ := f.Send("GET", "/api/v1/boards/top/members/cat/league", "", nil, "Cookie", request.LinkCookie("top")+"="+token)
	if status != 200 || !strings.Contains(raw, `"rank":3`) || !strings.Contains(raw, `"size":1`) {
		t.Errorf("cat's own league through its link: %d %s", status, raw)
	}
	key := f.Key("ops", "")
	_, raw = f.RawCall("GET", "/api/v1/boards/top/leagues/0/1", key, nil)
	if got, total := cohortRows(t, raw); got != "bob:1/1 ann:2/2 cat:3/3" || total != 3 {
		t.Errorf("top-only cohort with a key: %s", raw)
	}
}

// TestAPILeaguesTopOnlyCohorts: where only the top is shown, the league
// lists the cohorts that hold a member of the top (and a personal link's
// own), not every cohort: their number would tell how many members each
// tier holds, which the privacy mode keeps.
func TestAPILeaguesTopOnlyCohorts(t *testing.T) {
	f := webtest.New(t)
	ctx := context.Background()
	top := f.Board(leagueDef("top", func(b *board.Board) { b.TopOnly = 1; b.League.CohortSize = 2 }), nil)
	// Bronze 1: ann, bob (bob leads the board); Bronze 2: cat, dan; Bronze 3: eve.
	for _, m := range []struct {
		id    string
		score float64
	}{{"ann", 5}, {"bob", 9}, {"cat", 3}, {"dan", 2}, {"eve", 1}} {
		if _, err := f.Store.Submit(ctx, "top", board.Submission{Member: m.id, Score: m.score}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, raw := f.RawCall("GET", "/api/v1/boards/top/leagues", "", nil); !strings.Contains(raw, `{"tier":0,"name":"Bronze","cohorts":[{"cohort":1}]}`) {
		t.Errorf("top-only leagues: %s", raw)
	}
	_, token, err := f.Admin.Links.CreatePersonal(ctx, "top", top.Created, "eve", "", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if _, raw, _ := f.Send("GET", "/api/v1/boards/top/leagues", "", nil, "Cookie", request.LinkCookie("top")+"="+token); !strings.Contains(raw, `{"tier":0,"name":"Bronze","cohorts":[{"cohort":1},{"cohort":3}]}`) {
		t.Errorf("top-only leagues through eve's link: %s", raw)
	}
	if _, raw := f.RawCall("GET", "/api/v1/boards/top/leagues", f.Key("ops", ""), nil); !strings.Contains(raw, `"cohorts":[{"cohort":1,"members":2},{"cohort":2,"members":2},{"cohort":3,"members":1}]`) {
		t.Errorf("top-only leagues with a key: %s", raw)
	}
}

// TestAPIMemberLeagueResult: a member's league in a closed week says what
// the close did (move and next tier), once it has run; not before.
func TestAPIMemberLeagueResult(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2027, 1, 6, 12, 0, 0, 0, time.UTC).UnixNano())
	f := webtest.New(t, webtest.Clock(func() time.Time { return time.Unix(0, now.Add(int64(time.Millisecond))).UTC() }))
	b := f.Board(board.Board{ID: "lg", Title: "Ladder", Periods: []board.Kind{board.Weekly, board.AllTime},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver"}, CohortSize: 5, Promote: 1, Relegate: 1}}, nil)
	ctx := context.Background()
	for m, s := range map[string]float64{"ann": 9, "bob": 5} {
		if _, err := f.Store.Submit(ctx, "lg", board.Submission{Member: m, Score: s}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	w := b.Current(board.Weekly, f.Store.Now())
	now.Store(w.End.Add(time.Minute).UnixNano())
	path := "/api/v1/boards/lg/members/ann/league?period=week&at=" + w.Key
	if _, out, _ := f.Call("GET", path, "", ""); out["move"] != nil {
		t.Fatalf("a move before the close: %v", out)
	}
	if closed, err := f.Store.CloseLeague(ctx, b, w); err != nil || !closed {
		t.Fatalf("close: %v %v", closed, err)
	}
	status, out, _ := f.Call("GET", path, "", "")
	if status != 200 || out["move"] != "up" || out["next_tier"] != 1.0 || out["next_tier_name"] != "Silver" || out["tier_name"] != "Bronze" {
		t.Fatalf("ann after the close: %d %v", status, out)
	}
	if _, out, _ := f.Call("GET", "/api/v1/boards/lg/members/bob/league?period=week&at="+w.Key, "", ""); out["move"] != "stay" || out["next_tier"] != 0.0 {
		t.Fatalf("bob after the close: %v", out)
	}
}
