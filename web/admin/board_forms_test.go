package admin_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// boardForm is the new-board form as a browser sends it untouched.
func boardForm(csrf string) url.Values {
	return url.Values{"csrf": {csrf}, "id": {"quiz"}, "title": {"Quiz"}, "format": {"integer"}, "decimals": {"0"}, "prefix": {""},
		"suffix": {""}, "order": {"higher"}, "periods": {"week", "all"}, "default_period": {"week"}, "time_zone": {"UTC"},
		"tie_break": {"earliest"}, "rank_style": {"competition"}, "field0": {""}, "field0_dir": {"asc"}, "field1": {""},
		"field1_dir": {"asc"}, "field2": {""}, "field2_dir": {"asc"}, "cap": {""}, "retention": {"2"}}
}

// TestBoardFormShowsWhatWasSent: a form sent back with errors shows exactly
// what was sent (no period ticked stays none ticked, a bad number stays as
// typed), opens with a focused summary linking each bad field, and creates
// nothing.
func TestBoardFormShowsWhatWasSent(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	a.Get("/admin/boards/new")
	form := boardForm(a.CSRF)
	form.Del("periods")
	form.Set("cap", "12.5")
	form.Set("time_zone", "Mars/Olympus")
	res, body := a.Post("/admin/boards/new", form)
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", res.StatusCode)
	}
	if n := strings.Count(body, `name="periods"`); n != len(board.Kinds) || strings.Contains(body, "checked") {
		t.Fatalf("%d period boxes; a box is ticked although none was sent", n)
	}
	for _, want := range []string{`value="12.5"`, `value="Mars/Olympus"`, `class="error-summary" role="alert" tabindex="-1" autofocus`,
		`href="#period-day"`, `Periods: enable at least one period`, `href="#time_zone"`, `href="#cap"`, `id="period-day"`} {
		if !strings.Contains(webtest.Unescape(body), want) {
			t.Errorf("the page sent back lacks %s", want)
		}
	}
	if strings.Contains(body, `href="#default_period"`) {
		t.Error(`with no period ticked, "Opens on" is blamed as well`)
	}
	if bs, _ := f.Store.Boards(t.Context()); len(bs) != 0 {
		t.Fatalf("a bad form created %v", bs)
	}
	// Fixed: created, with the message it earns.
	a.Get("/admin/boards/new")
	if msg := a.FlashAfter(a.Post("/admin/boards/new", boardForm(a.CSRF))); msg != "Board created." {
		t.Fatalf("message %q", msg)
	}
}

// TestEditFormFixedFields: settings fixed at creation are text on the edit
// form, not controls; an edit keeps them; a request that tries to change
// one is refused with a clear error, and nothing is written.
func TestEditFormFixedFields(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	f.Board(board.Board{ID: "golf", Title: "Golf", Order: board.LowerIsBetter, TieBreak: board.Latest,
		Format: board.Format{Type: board.Decimal, Decimals: 1, Suffix: " strokes"}, Fields: []board.Field{{Name: "birdies", Desc: true}}}, nil)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	_, page := a.Get("/admin/boards/golf/edit")
	for _, gone := range []string{`name="order"`, `name="tie_break"`, `name="field0"`, `name="field0_dir"`, `name="decimals"`, `name="format"`, "disabled", "readonly"} {
		if strings.Contains(page, gone) {
			t.Errorf("the edit form still has %s", gone)
		}
	}
	for _, want := range []string{`data-testid="fixed-order"`, ">Lower<", `data-testid="fixed-tie_break"`, "Last to reach the score ranks higher",
		`data-testid="fixed-fields"`, "<code>birdies</code>: more is better", `data-testid="fixed-decimals"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the edit form lacks %s", want)
		}
	}
	edit := url.Values{"csrf": {a.CSRF}, "title": {"Club golf"}, "prefix": {""}, "suffix": {" strokes"}, "periods": {"all"},
		"default_period": {"all"}, "time_zone": {"UTC"}, "rank_style": {"dense"}, "cap": {""}, "retention": {"2"}}
	if msg := a.FlashAfter(a.Post("/admin/boards/golf/edit", edit)); msg != "Board saved." {
		t.Fatalf("message %q", msg)
	}
	b := f.MustBoard(t, "golf")
	if b.Title != "Club golf" || b.RankStyle != board.Dense || b.Order != board.LowerIsBetter || b.TieBreak != board.Latest ||
		b.Format.Decimals != 1 || len(b.Fields) != 1 || !b.Fields[0].Desc {
		t.Fatalf("after an edit: %+v", b)
	}
	version := b.Version
	for _, tc := range []struct {
		name  string
		board string
		set   url.Values
		field string
	}{
		{"order", "golf", url.Values{"order": {"higher"}}, "error-order"},
		{"tie-break", "golf", url.Values{"tie_break": {"earliest"}}, "error-tie_break"},
		{"decimal places", "golf", url.Values{"decimals": {"2"}}, "error-decimals"},
		{"a field's direction", "golf", url.Values{"field0": {"birdies"}, "field0_dir": {"asc"}}, "error-fields"},
		{"a field's name", "golf", url.Values{"field0": {"eagles"}, "field0_dir": {"desc"}}, "error-fields"},
		{"a field the board lacks", "chess", url.Values{"field0": {""}, "field0_dir": {"desc"}}, "error-fields"},
		{"a new field", "chess", url.Values{"field0": {"clears"}, "field0_dir": {"desc"}}, "error-fields"},
		{"to whole numbers", "golf", url.Values{"format": {"integer"}}, "error-format"},
		{"to amounts with decimals", "chess", url.Values{"format": {"decimal"}, "decimals": {"2"}}, "error-format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.Get("/admin/boards/" + tc.board + "/edit")
			form := url.Values{}
			for k, v := range edit {
				form[k] = v
			}
			form.Set("csrf", a.CSRF)
			for k, v := range tc.set {
				form[k] = v
			}
			before := f.MustBoard(t, tc.board).Version
			res, body := a.Post("/admin/boards/"+tc.board+"/edit", form)
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="`+tc.field+`"`) || !strings.Contains(body, "create a new board") {
				t.Fatalf("status %d, want 422 with %s saying to create a new board:\n%s", res.StatusCode, tc.field, webtest.Excerpt(body))
			}
			if after := f.MustBoard(t, tc.board).Version; after != before {
				t.Fatalf("refused, yet the definition was written (version %d -> %d)", before, after)
			}
		})
	}
	if f.MustBoard(t, "golf").Version != version {
		t.Fatal("a refused edit wrote")
	}
}

// TestConsoleMessagesUseNames: messages after a change name the member by
// display name, with the id beside it.
func TestConsoleMessagesUseNames(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	f.Board(board.Board{ID: "golf", Title: "Golf", Order: board.LowerIsBetter, Format: board.Format{Type: board.Integer, Suffix: " strokes"}}, map[string]float64{"bob": 75})
	if _, err := f.Store.SetName(t.Context(), "golf", "ann", "Ann Lee", board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	a.Get("/admin/boards/golf")
	score := url.Values{"csrf": {a.CSRF}, "member": {"ann"}, "op": {"set"}, "value": {"72"}, "reason": {"round 1"}}
	if msg := a.FlashAfter(a.Post("/admin/boards/golf/score", score)); msg != "Ann Lee (ann) now has 72 strokes (1st)." {
		t.Fatalf("score message %q", msg)
	}
	score.Set("member", "bob")
	score.Set("name", "Bob Ray")
	score.Set("csrf", a.CSRF)
	if msg := a.FlashAfter(a.Post("/admin/boards/golf/score", score)); msg != "Bob Ray (bob) now has 72 strokes (1st)." {
		t.Fatalf("score message with a new name %q", msg)
	}
	if msg := a.FlashAfter(a.Post("/admin/boards/golf/rename", url.Values{"csrf": {a.CSRF}, "member": {"ann"}, "name": {"Ann L."}})); msg != "Ann Lee (ann) is now shown as Ann L.." {
		t.Fatalf("rename message %q", msg)
	}
	if msg := a.FlashAfter(a.Post("/admin/boards/golf/remove", url.Values{"csrf": {a.CSRF}, "member": {"bob"}, "period": {"all"}, "reason": {"left"}})); msg != "Bob Ray (bob) removed from 1 period." {
		t.Fatalf("remove message %q", msg)
	}
	if _, page := a.Get("/admin/boards/golf"); !strings.Contains(page, "Strokes · lower is better") {
		t.Fatal(`the golf board is not described as "Strokes · lower is better"`)
	}
}

// TestManageFormErrorSummary: a form of the board page sent back with
// errors opens with a summary linking its bad fields, in that form only.
func TestManageFormErrorSummary(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	f.Board(board.Board{ID: "chess", Title: "Chess"}, nil)
	a.Get("/admin/boards/chess")
	res, body := a.Post("/admin/boards/chess/score", url.Values{"csrf": {a.CSRF}, "member": {"ann"}, "op": {"incr"}, "value": {"abc"}, "reason": {""}})
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", res.StatusCode)
	}
	links := regexp.MustCompile(`data-testid="error-link">([^<]*)<`).FindAllStringSubmatch(body, -1)
	if strings.Count(body, `class="error-summary"`) != 1 || len(links) != 2 || !strings.Contains(body, `href="#s-value"`) || !strings.Contains(body, `href="#s-reason"`) {
		t.Fatalf("summary links %v", links)
	}
	if got := webtest.Unescape(links[0][1]); got != "Value: must be a number such as 120 or 9.58" {
		t.Fatalf("first link %q", got)
	}
}

// TestBoardFormPrivacyMode: the form's privacy mode (names on shared pages,
// show only the top) is saved with the board and shown again on its edit
// form; a top that is not a number in range is refused beside its field.
func TestBoardFormPrivacyMode(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	a.Get("/admin/boards/new")
	form := boardForm(a.CSRF)
	form.Set("names", "pseudonyms")
	form.Set("top_only", "many")
	res, body := a.Post("/admin/boards/new", form)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `href="#top_only"`) {
		t.Fatalf("top_only=many: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	form.Set("top_only", "500")
	if res, body := a.Post("/admin/boards/new", form); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "must be from 0 (show everyone) to 100") {
		t.Fatalf("top_only=500: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	form.Set("top_only", "3")
	if msg := a.FlashAfter(a.Post("/admin/boards/new", form)); msg != "Board created." {
		t.Fatalf("message %q", msg)
	}
	if b := f.MustBoard(t, "quiz"); b.Names != board.Pseudonyms || b.TopOnly != 3 {
		t.Fatalf("saved names %q top %d", b.Names, b.TopOnly)
	}
	_, edit := a.Get("/admin/boards/quiz/edit")
	if !strings.Contains(edit, `<option value="pseudonyms" selected`) || !strings.Contains(edit, `id="top_only" name="top_only" value="3"`) {
		t.Fatalf("the edit form does not show the privacy mode: %s", webtest.Excerpt(edit))
	}
}

// TestEditFormKeepsSegments: the form has no field for segments yet, so an
// edit keeps the board's attributes and their standings.
func TestEditFormKeepsSegments(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	f.Board(board.Board{ID: "geo", Title: "Geo", Segments: []string{"country"}}, nil)
	a.Get("/admin/boards/geo/edit")
	edit := url.Values{"csrf": {a.CSRF}, "title": {"Geography"}, "periods": {"all"}, "default_period": {"all"}, "time_zone": {"UTC"},
		"rank_style": {"competition"}, "retention": {"2"}}
	if msg := a.FlashAfter(a.Post("/admin/boards/geo/edit", edit)); msg != "Board saved." {
		t.Fatalf("message %q", msg)
	}
	if b := f.MustBoard(t, "geo"); b.Title != "Geography" || len(b.Segments) != 1 || b.Segments[0] != "country" {
		t.Fatalf("after an edit: %+v", b)
	}
}

// TestEditFormKeepsLeague: a form without the league section (an older
// page, a script) keeps the board's league (and with it its members' tiers).
func TestEditFormKeepsLeague(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	f.Board(board.Board{ID: "ladder", Title: "Ladder", Periods: []board.Kind{board.Weekly},
		League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Gold"}, Promote: 1, Relegate: 1}}, nil)
	a.Get("/admin/boards/ladder/edit")
	edit := url.Values{"csrf": {a.CSRF}, "title": {"Ladder 2"}, "periods": {"week"}, "default_period": {"week"}, "time_zone": {"UTC"},
		"rank_style": {"competition"}, "retention": {"2"}}
	if msg := a.FlashAfter(a.Post("/admin/boards/ladder/edit", edit)); msg != "Board saved." {
		t.Fatalf("message %q", msg)
	}
	if b := f.MustBoard(t, "ladder"); b.Title != "Ladder 2" || b.League == nil || b.League.Tiers[1] != "Gold" {
		t.Fatalf("after an edit: %+v", b)
	}
}
