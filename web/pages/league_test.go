package pages_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
	"podium/redisstore"
	"podium/web/request"
)

// leagueBoard makes a weekly league board: Bronze, Silver, Gold, cohorts
// of 2; ann 50, bob 40 fill Bronze's first cohort, cat 30 opens the
// second.
func leagueBoard(t *testing.T, f *webtest.Server, mod func(*board.Board)) *board.Board {
	t.Helper()
	def := board.Board{ID: "lg", Title: "Ladder", Periods: []board.Kind{board.Weekly, board.AllTime},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: 2, Promote: 1, Relegate: 1}}
	if mod != nil {
		mod(&def)
	}
	b := f.Board(def, nil)
	for _, s := range []struct {
		m     string
		score float64
	}{{"ann", 50}, {"bob", 40}, {"cat", 30}} {
		if _, err := f.Store.Submit(context.Background(), def.ID, board.Submission{Member: s.m, Score: s.score, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// TestLeaguePages: the board page links its league; the league page lists
// the tiers highest first with their cohorts, each linking to its
// standing; a cohort's page ranks its members within it, the board rank
// beside, live; the member page shows the member's league; a board
// without a league and a period of another kind say so.
func TestLeaguePages(t *testing.T) {
	f := webtest.New(t, webtest.Live())
	leagueBoard(t, f, nil)
	f.Board(board.Board{ID: "plain", Title: "Plain"}, map[string]float64{"ann": 1})
	// A closed week whose keys left Redis for an archive this server does not have.
	if err := webtest.Redis(t).HSet(context.Background(), redisstore.ArchiveState("lg"), "week:2026-W50", "0 1"+redisstore.ExpiredMark).Err(); err != nil {
		t.Fatal(err)
	}

	_, body := f.Get("/b/lg")
	if !strings.Contains(body, `data-testid="league-link"`) || !strings.Contains(body, `href="/b/lg/leagues?period=week"`) {
		t.Errorf("board page without a league link\n%s", webtest.Excerpt(body))
	}
	if _, body = f.Get("/b/plain"); strings.Contains(body, "league-link") {
		t.Error("a board without a league links one")
	}

	res, body := f.Get("/b/lg/leagues")
	gold, silver, bronze := strings.Index(body, "<h2>Gold</h2>"), strings.Index(body, "<h2>Silver</h2>"), strings.Index(body, "<h2>Bronze</h2>")
	if res.StatusCode != 200 || gold < 0 || !(gold < silver && silver < bronze) {
		t.Fatalf("leagues: %d, tiers at %d %d %d\n%s", res.StatusCode, gold, silver, bronze, webtest.Excerpt(body))
	}
	for _, want := range []string{
		`A weekly league in 3 tiers, cohorts of up to 2. When a week closes, the top 1 of each cohort move up a tier and the bottom 1 move down.`,
		`href="/b/lg/leagues/0/1?period=week">Cohort 1</a>`, `href="/b/lg/leagues/0/2?period=week">Cohort 2</a>`,
		`2 members`, `Tier 1 of 3 · 2 cohorts · 3 members`, `Nobody in Gold has played in Week 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("leagues page lacks %s\n%s", want, webtest.Excerpt(body))
		}
	}

	res, body = f.Get("/b/lg/leagues/0/1")
	if got := segmentRows(body); res.StatusCode != 200 || got != "ann:1/1 bob:2/2" {
		t.Fatalf("cohort 0/1: %d %q\n%s", res.StatusCode, got, webtest.Excerpt(body))
	}
	for _, want := range []string{`data-testid="cohort-title">Bronze <span class="segment-name">Cohort 1</span>`,
		`data-live="board=lg&amp;limit=25&amp;offset=0&amp;period=week&amp;segment=L%3A0%2F1"`, `2 members`,
		`When the week closes, the top 1 move up to Silver.`} {
		if !strings.Contains(body, want) {
			t.Errorf("cohort page lacks %s\n%s", want, webtest.Excerpt(body))
		}
	}
	if _, body = f.Get("/b/lg/leagues/0/2"); segmentRows(body) != "cat:1/3" {
		t.Errorf("cohort 0/2: %s", webtest.Excerpt(body))
	}

	_, body = f.Get("/b/lg/m/bob")
	for _, want := range []string{`<h2>League</h2>`, `data-testid="member-tier">Bronze</strong>`,
		`href="/b/lg/leagues/0/1?period=week" data-testid="member-cohort">Cohort 1</a>`, `<strong>2nd</strong>`, `of 2`} {
		if !strings.Contains(body, want) {
			t.Errorf("member page lacks %s\n%s", want, webtest.Excerpt(body))
		}
	}
	if _, body = f.Get("/b/plain/m/ann"); strings.Contains(body, "member-league") {
		t.Error("a board without a league shows a member's league")
	}

	for _, c := range []struct {
		path, want string
		status     int
	}{
		{"/b/plain/leagues", "Plain runs no league", 404},
		{"/b/plain/leagues/0/1", "Plain runs no league", 404},
		{"/b/lg/leagues?period=all", "the league of Ladder runs on week periods only", 400},
		{"/b/lg/leagues/0/1?period=all", "the league of Ladder runs on week periods only", 400},
		{"/b/lg/leagues/3/1", "The league of Ladder has 3 tiers.", 404},
		{"/b/lg/leagues/x/1", "tier must be a whole number", 400},
		{"/b/lg/leagues/0/0", "cohort must be a whole number", 400},
		{"/b/lg/leagues?at=2026-W50", "but not its league cohorts", 410},
		{"/b/lg/leagues/0/1?at=2026-W50", "but not its league cohorts", 410},
	} {
		if res, body := f.Get(c.path); res.StatusCode != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d, want %d %q\n%s", c.path, res.StatusCode, c.status, c.want, webtest.Excerpt(body))
		}
	}
}

// TestLeaguePagesPrivacy: on a board that shows only its top under
// pseudonyms, a cohort page shows its members among the top, masked, and
// the league page no member counts; a personal link sees its own league,
// on the league page and its member page.
func TestLeaguePagesPrivacy(t *testing.T) {
	f := webtest.New(t)
	b := leagueBoard(t, f, func(b *board.Board) { b.TopOnly, b.Names = 1, board.Pseudonyms })
	_, body := f.Get("/b/lg/leagues/0/1")
	if strings.Contains(body, "ann") || strings.Contains(body, "bob") || !strings.Contains(body, "1 member") || !strings.Contains(body, "Player ") {
		t.Errorf("top-only cohort page\n%s", webtest.Excerpt(body))
	}
	_, body = f.Get("/b/lg/leagues")
	if strings.Contains(body, "members") || strings.Contains(body, "member-league") {
		t.Errorf("top-only leagues page shows counts or a league\n%s", webtest.Excerpt(body))
	}
	_, token, err := f.Admin.Links.CreatePersonal(context.Background(), "lg", b.Created, "cat", "", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	cookie := []string{"Cookie", request.LinkCookie("lg") + "=" + token}
	_, body = f.Get("/b/lg/leagues", cookie...)
	if !strings.Contains(body, `<h2>Your league</h2>`) || !strings.Contains(body, `aria-current="true" class="mine">Cohort 2</a>`) {
		t.Errorf("cat's leagues page\n%s", webtest.Excerpt(body))
	}
	_, body = f.Get("/b/lg/m/cat", cookie...)
	if !strings.Contains(body, `<h2>Your league</h2>`) || !strings.Contains(body, `<strong>1st</strong>`) {
		t.Errorf("cat's member page\n%s", webtest.Excerpt(body))
	}
}

// TestCohortRules: a cohort's page says where its top and bottom go at the
// close, and no one goes above the top tier or below the lowest.
func TestCohortRules(t *testing.T) {
	f := webtest.New(t)
	leagueBoard(t, f, func(b *board.Board) { b.League.IdleDrops = true })
	for _, c := range []struct{ path, want string }{
		{"/b/lg/leagues/0/1", "When the week closes, the top 1 move up to Silver."},
		{"/b/lg/leagues/1/1", "When the week closes, the top 1 move up to Gold and the bottom 1 move down to Bronze. Members who did not play drop a tier."},
		{"/b/lg/leagues/2/1", "When the week closes, the bottom 1 move down to Silver. Members who did not play drop a tier."},
	} {
		if _, body := f.Get(c.path); !strings.Contains(body, c.want) {
			t.Errorf("%s lacks %q\n%s", c.path, c.want, webtest.Excerpt(body))
		}
	}
}

// TestClosedCohortShowsMoves: a closed week's cohort page says what the
// close did to its members: who went up, who went down, and to which tier.
func TestClosedCohortShowsMoves(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2027, 1, 6, 12, 0, 0, 0, time.UTC).UnixNano())
	f := webtest.New(t, webtest.Clock(func() time.Time { return time.Unix(0, now.Add(int64(time.Millisecond))).UTC() }))
	ctx := context.Background()
	if err := webtest.Redis(t).HSet(ctx, "lb:{lg}:league:tier", "dan", 1, "eve", 1).Err(); err != nil {
		t.Fatal(err)
	}
	b := leagueBoard(t, f, nil)
	for m, s := range map[string]float64{"dan": 20, "eve": 10} {
		if _, err := f.Store.Submit(ctx, b.ID, board.Submission{Member: m, Score: s, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	w := b.Current(board.Weekly, f.Store.Now())
	if _, body := f.Get("/b/lg/leagues/1/1"); strings.Contains(body, "league-moves") {
		t.Fatal("an open week's cohort shows moves")
	}
	now.Store(w.End.Add(time.Minute).UnixNano())
	if closed, err := f.Store.CloseLeague(ctx, b, w); err != nil || !closed {
		t.Fatalf("close: %v %v", closed, err)
	}
	_, body := f.Get("/b/lg/leagues/1/1?period=week&at=" + w.Key)
	for _, want := range []string{`data-testid="moved-up"`, `Up to <strong>Gold</strong>: dan`, `Down to <strong>Bronze</strong>: eve`} {
		if !strings.Contains(body, want) {
			t.Errorf("closed Silver 1 lacks %s\n%s", want, webtest.Excerpt(body))
		}
	}
	if _, body := f.Get("/b/lg/leagues/0/1?period=week&at=" + w.Key); !strings.Contains(body, `Up to <strong>Silver</strong>: ann`) || strings.Contains(body, "moved-down") {
		t.Errorf("closed Bronze 1: ann up, nobody down past the lowest tier\n%s", webtest.Excerpt(body))
	}
}

// TestLeaguePageTopOnlyCohorts: where only the top is shown, the league
// page lists the cohorts holding a member of the top (and a personal
// link's own), not how many cohorts each tier has.
func TestLeaguePageTopOnlyCohorts(t *testing.T) {
	f := webtest.New(t)
	b := leagueBoard(t, f, func(b *board.Board) { b.TopOnly = 1 }) // Bronze 1: ann, bob; Bronze 2: cat
	_, body := f.Get("/b/lg/leagues")
	if !strings.Contains(body, `href="/b/lg/leagues/0/1?period=week"`) || strings.Contains(body, "/b/lg/leagues/0/2") || strings.Contains(body, "2 cohorts") {
		t.Errorf("top-only league page lists cohorts beyond the top\n%s", webtest.Excerpt(body))
	}
	_, token, err := f.Admin.Links.CreatePersonal(context.Background(), "lg", b.Created, "cat", "", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if _, body = f.Get("/b/lg/leagues", "Cookie", request.LinkCookie("lg")+"="+token); !strings.Contains(body, "/b/lg/leagues/0/2") {
		t.Errorf("cat's own cohort is not listed through its link\n%s", webtest.Excerpt(body))
	}
}
