package admin_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"podium/audit"
	"podium/board"
	"podium/hooks"
	"podium/internal/webtest"
)

// TestConsoleLeague: the board form's league section makes a league,
// shows it on the edit form, changes it (audited) and takes it off; what
// is wrong is said beside its field, and nothing is written.
func TestConsoleLeague(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	_, page := a.Get("/admin/boards/new")
	for _, want := range []string{`id="league_kind"`, `<option value="" selected>No league</option>`, `id="league_tiers"`, `id="league_idle_drops"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the new-board form lacks %s", want)
		}
	}
	form := boardForm(a.CSRF)
	form.Set("league_kind", "week")
	form.Set("league_tiers", "Bronze\r\nSilver, Gold\r\n\r\n")
	form.Set("league_cohort_size", "10")
	form.Set("league_promote", "3")
	form.Set("league_relegate", "2")
	form.Set("league_idle_drops", "1")
	if msg := a.FlashAfter(a.Post("/admin/boards/new", form)); msg != "Board created." {
		t.Fatalf("create: %q", msg)
	}
	want := board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: 10, Promote: 3, Relegate: 2, IdleDrops: true}
	if l := f.MustBoard(t, "quiz").League; l == nil || !sameLeague(*l, want) {
		t.Fatalf("league %+v", l)
	}
	_, edit := a.Get("/admin/boards/quiz/edit")
	for _, want := range []string{`<option value="week" selected>Weekly</option>`, ">Bronze\nSilver\nGold</textarea>",
		`name="league_cohort_size" value="10"`, `name="league_promote" value="3"`, `name="league_relegate" value="2"`, `value="1" checked`} {
		if !strings.Contains(edit, want) {
			t.Fatalf("the edit form lacks %s: %s", want, webtest.Excerpt(edit))
		}
	}

	// Wrong: each beside its field, in the summary, and nothing saved.
	for _, k := range []string{"id", "field0", "field0_dir", "field1", "field1_dir", "field2", "field2_dir"} {
		form.Del(k) // the edit form has none of them
	}
	form.Del("league_idle_drops")
	for _, c := range []struct{ name, field, value, id, msg string }{
		{"a kind the board does not keep", "league_kind", "month", "league_kind", "must be a calendar period the board keeps"},
		{"one tier", "league_tiers", "Gold", "league_tiers", "name 2 to 20 tiers"},
		{"a tier named twice", "league_tiers", "A, B, A", "league_tiers", `tier &#34;A&#34; is named twice`},
		{"a cohort size that is not a number", "league_cohort_size", "ten", "league_cohort_size", "must be a whole number from 2 to 1000"},
		{"a cohort too small", "league_cohort_size", "1", "league_cohort_size", "must be from 2 to 1000"},
		{"moves larger than a cohort", "league_promote", "9", "league_promote", "together at most the cohort size (10)"},
		{"relegate not a number", "league_relegate", "two", "league_relegate", "must be a whole number"},
	} {
		sent := cloneValues(form)
		sent.Set(c.field, c.value)
		res, body := a.Post("/admin/boards/quiz/edit", sent)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `href="#`+c.id+`"`) ||
			!strings.Contains(body, `id="`+c.id+`-error" data-testid="error-`+c.id+`">`) || !strings.Contains(body, c.msg) {
			t.Errorf("%s: %d %s", c.name, res.StatusCode, webtest.Excerpt(body))
		}
		if c.field == "league_tiers" && !strings.Contains(body, ">"+c.value+"</textarea>") {
			t.Errorf("%s: the tiers sent are not shown again", c.name)
		}
	}
	if l := f.MustBoard(t, "quiz").League; l == nil || !sameLeague(*l, want) {
		t.Fatalf("a refused form changed the league: %+v", l)
	}

	// Changed (idle members keep their tier now), then taken off.
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/edit", form)); msg != "Board saved." {
		t.Fatalf("edit: %q", msg)
	}
	want.IdleDrops = false
	if l := f.MustBoard(t, "quiz").League; l == nil || !sameLeague(*l, want) {
		t.Fatalf("after an edit %+v", l)
	}
	form.Set("league_kind", "")
	if msg := a.FlashAfter(a.Post("/admin/boards/quiz/edit", form)); msg != "Board saved." {
		t.Fatalf("off: %q", msg)
	}
	if l := f.MustBoard(t, "quiz").League; l != nil {
		t.Fatalf("the league stayed: %+v", l)
	}
	entries, _, _ := f.Admin.Audit.List(t.Context(), audit.Filter{Board: "quiz"}, "", 10)
	var leagues []string
	for _, e := range entries {
		if e.Action == "board.update" {
			leagues = append(leagues, e.After)
		}
	}
	if len(leagues) != 2 || strings.Contains(leagues[0], `"league"`) || !strings.Contains(leagues[1], `"tiers":["Bronze","Silver","Gold"]`) {
		t.Fatalf("audited edits %q", leagues)
	}
	_, audited := a.Get("/admin/audit?board=quiz")
	for _, want := range []string{"Weekly: Bronze, Silver, Gold; cohorts of 10, 3 up, 2 down; idle members drop a tier", "(none)"} {
		if !strings.Contains(webtest.Unescape(audited), want) {
			t.Errorf("the audit log lacks %q", want)
		}
	}
}

// TestConsoleLeagueDefaultSize: a league made without a cohort size keeps
// none (the default) through an edit of the form, which shows the
// default's number.
func TestConsoleLeagueDefaultSize(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	f.Board(board.Board{ID: "ladder", Title: "Ladder", Periods: []board.Kind{board.Weekly},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Gold"}, Promote: 1, Relegate: 1}}, nil)
	_, edit := a.Get("/admin/boards/ladder/edit")
	if !strings.Contains(edit, `name="league_cohort_size" value="30"`) {
		t.Fatalf("the default size is not shown: %s", webtest.Excerpt(edit))
	}
	form := cloneValues(url.Values{"csrf": {a.CSRF}, "title": {"Ladder 2"}, "periods": {"week"}, "default_period": {"week"}, "time_zone": {"UTC"},
		"rank_style": {"competition"}, "retention": {"2"}, "league_kind": {"week"}, "league_tiers": {"Bronze\nGold"},
		"league_cohort_size": {"30"}, "league_promote": {"1"}, "league_relegate": {"1"}})
	if msg := a.FlashAfter(a.Post("/admin/boards/ladder/edit", form)); msg != "Board saved." {
		t.Fatalf("edit: %q", msg)
	}
	if l := f.MustBoard(t, "ladder").League; l == nil || l.CohortSize != 0 || l.Size() != board.DefaultCohortSize {
		t.Fatalf("after an edit: %+v", l)
	}
}

func sameLeague(a, b board.League) bool {
	return a.Kind == b.Kind && slices.Equal(a.Tiers, b.Tiers) && a.CohortSize == b.CohortSize && a.Promote == b.Promote &&
		a.Relegate == b.Relegate && a.IdleDrops == b.IdleDrops
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

// TestConsoleLeagueWebhook: the webhooks form offers "league period
// closed" only on a board with a league; sent anyway on one without, it is
// refused beside the events, and nothing is written.
func TestConsoleLeagueWebhook(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}, nil)
	f.Board(board.Board{ID: "ladder", Title: "Ladder", Periods: []board.Kind{board.Weekly},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Gold"}, Promote: 1, Relegate: 1}}, nil)
	box := `value="league.closed"`
	if _, body := a.Get("/admin/boards/chess/hooks"); strings.Contains(body, box) {
		t.Fatal("a board without a league offers league.closed")
	}
	res, body := a.Post("/admin/boards/chess/hooks", url.Values{"csrf": {a.CSRF}, "url": {"https://example.com/x"}, "events": {"league.closed"},
		"periods": {"every"}, "top": {"3"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "needs a league on the board") {
		t.Fatalf("league.closed without a league: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	if hs, _ := f.Admin.Hooks.List(t.Context(), "chess"); len(hs) != 0 {
		t.Fatalf("wrote %d hooks", len(hs))
	}
	if _, body := a.Get("/admin/boards/ladder/hooks"); !strings.Contains(body, box) || !strings.Contains(body, "League period closed") ||
		!strings.Contains(webtest.Unescape(body), "its final top N, a league period's promotions and relegations. Each") {
		t.Fatalf("a board with a league does not offer league.closed: %s", webtest.Excerpt(body))
	}
	res, body = a.Post("/admin/boards/ladder/hooks", url.Values{"csrf": {a.CSRF}, "url": {"https://example.com/x"}, "events": {"league.closed"},
		"periods": {"every"}, "top": {"3"}})
	if hs, _ := f.Admin.Hooks.List(t.Context(), "ladder"); res.StatusCode != http.StatusCreated || len(hs) != 1 || !hs[0].Wants(hooks.LeagueClosed) {
		t.Fatalf("league.closed on a league: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
}
