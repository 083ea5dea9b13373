package e2e

import (
	"fmt"
	"math"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"podium/board"
)

// box is an element's place on the page, from getBoundingClientRect.
type box struct{ Top, Bottom, Left, Right float64 }

func boxOf(t *testing.T, page playwright.Page, selector string) box {
	t.Helper()
	v, err := page.Locator(selector).First().Evaluate(`el => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }`, nil)
	must(t, err)
	m, _ := v.(map[string]any)
	f := func(k string) float64 {
		switch x := m[k].(type) {
		case float64:
			return x
		case int:
			return float64(x)
		}
		t.Fatalf("%s: no %s in %v", selector, k, v)
		return 0
	}
	return box{f("top"), f("bottom"), f("left"), f("right")}
}

// level fails unless two elements start within 1 px of each other.
func level(t *testing.T, page playwright.Page, what, a, b string) {
	t.Helper()
	ba, bb := boxOf(t, page, a), boxOf(t, page, b)
	if d := math.Abs(ba.Top - bb.Top); d > 1 {
		t.Errorf("%s: %s starts at %.1f px, %s at %.1f px (%.1f px apart)", what, a, ba.Top, b, bb.Top, d)
	}
}

// TestPairedFieldsAlign: fields side by side start level, label with label
// and control with control, whether or not one of them shows an error or
// more help; on a board's page, the first cards start level and the look-up
// button sits beside its input.
func TestPairedFieldsAlign(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "quiz", Title: "Quiz"}, "ann", 3)
	page := newPage(t)
	signIn(t, page, a, adminPassword)
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/admin$`)))

	pairs := [][2]string{{"format", "decimals"}, {"prefix", "suffix"}, {"default_period", "time_zone"}, {"tie_break", "rank_style"}}
	check := func(when string) {
		t.Helper()
		for _, p := range pairs {
			level(t, page, when+": labels", `label[for="`+p[0]+`"]`, `label[for="`+p[1]+`"]`)
			level(t, page, when+": controls", "#"+p[0], "#"+p[1])
		}
	}
	open(t, page, a.URL+"/admin/boards/new", 200)
	check("new board")
	// Errors on one side of each pair: the other side stays level.
	must(t, page.Locator("#id").Fill("quiz2"))
	must(t, page.Locator("#title").Fill("Quiz 2"))
	for id, v := range map[string]string{"tie_break": "member", "rank_style": "dense"} { // refused together
		_, err := page.Locator("#" + id).SelectOption(playwright.SelectOptionValues{Values: &[]string{v}})
		must(t, err)
	}
	must(t, page.Locator("#time_zone").Fill("Mars/Olympus"))
	_, err := page.Locator("#format").SelectOption(playwright.SelectOptionValues{Values: &[]string{"decimal"}})
	must(t, err)
	must(t, page.Locator("#decimals").Fill("9"))
	must(t, page.GetByTestId("save-board").Click())
	must(t, expect.Locator(page.GetByTestId("error-time_zone")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("error-decimals")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("error-rank_style")).ToBeVisible())
	check("new board with errors")

	open(t, page, a.URL+"/admin/boards/quiz/edit", 200)
	level(t, page, "edit board: labels", `label[for="format"]`, `[data-testid="fixed-decimals"] .label`)
	level(t, page, "edit board: labels", `[data-testid="fixed-tie_break"] .label`, `label[for="rank_style"]`)

	open(t, page, a.URL+"/admin/boards/quiz", 200)
	level(t, page, "board page: first cards", ".admin-grid > :nth-child(1) h2", ".admin-grid > :nth-child(2) h2")
	input, button := boxOf(t, page, "#lookup"), boxOf(t, page, `button:has-text("Look up")`)
	if math.Abs(input.Top-button.Top) > 1 || math.Abs(input.Bottom-button.Bottom) > 1 {
		t.Errorf("Look up spans %.1f-%.1f px, its input %.1f-%.1f px", button.Top, button.Bottom, input.Top, input.Bottom)
	}
	level(t, page, "change a score", "#s-op", "#s-value")
	form := page.GetByTestId("score-form")
	must(t, form.Locator("#s-member").Fill("ann"))
	must(t, form.Locator("#s-value").Fill("lots"))
	must(t, form.Locator("#s-reason").Fill("typo"))
	must(t, page.GetByTestId("save-score").Click())
	must(t, expect.Locator(page.GetByTestId("error-s-value")).ToBeVisible())
	level(t, page, "change a score with an error: labels", `label[for="s-op"]`, `label[for="s-value"]`)
	level(t, page, "change a score with an error: controls", "#s-op", "#s-value")
	level(t, page, "board page with an error: first cards", ".admin-grid > :nth-child(1) h2", ".admin-grid > :nth-child(2) h2")
}

// activeElementOf is the page's focused element: "tag#id.class".
func activeElementOf(t *testing.T, page playwright.Page) string {
	t.Helper()
	v, err := page.Evaluate(`() => { const e = document.activeElement; return e ? e.tagName.toLowerCase() + "#" + e.id + "." + e.className : ""; }`)
	must(t, err)
	return fmt.Sprint(v)
}

// TestErrorSummaryTakesFocus: a form sent back with errors shows exactly
// what was sent, and the keyboard starts at a summary that links to each bad
// field; following a link lands on the field.
func TestErrorSummaryTakesFocus(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	page := newPage(t)
	signIn(t, page, a, adminPassword)
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/admin$`)))
	open(t, page, a.URL+"/admin/boards/new", 200)
	must(t, page.Locator("#id").Fill("quiz"))
	must(t, page.Locator("#title").Fill("Quiz"))
	for _, p := range []string{"day", "week", "month", "year", "all"} {
		must(t, page.Locator("#period-"+p).SetChecked(false))
	}
	must(t, page.GetByTestId("save-board").Click())
	summary := page.GetByTestId("form-error")
	must(t, expect.Locator(summary).ToBeFocused())
	must(t, expect.Locator(summary).ToHaveAttribute("role", "alert"))
	must(t, expect.Locator(summary.GetByTestId("error-link")).ToHaveText([]string{"Periods: enable at least one period"}))
	must(t, expect.Locator(page.Locator(`input[name="periods"]:checked`)).ToHaveCount(0)) // as sent: none ticked
	must(t, expect.Locator(page.Locator("#title")).ToHaveValue("Quiz"))
	// Tab reaches the link first; Enter lands on the field.
	must(t, page.Keyboard().Press("Tab"))
	must(t, expect.Locator(summary.GetByTestId("error-link")).ToBeFocused())
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Locator(page.Locator("#period-day")).ToBeFocused())
	if bs, _ := a.store.Boards(t.Context()); len(bs) != 0 {
		t.Fatalf("a form with errors created %v", bs)
	}

	// A form of a board's page: its own summary takes the focus.
	a.board(board.Board{ID: "chess", Title: "Chess"}, "ann", 3)
	open(t, page, a.URL+"/admin/boards/chess", 200)
	reset := page.Locator("#reset-form")
	must(t, reset.Locator("#p-confirm").Fill("wrong"))
	must(t, reset.GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Reset period"}).Click())
	must(t, expect.Locator(page.Locator("#reset-form .error-summary")).ToBeFocused())
	must(t, expect.Locator(page.Locator("#reset-form").GetByTestId("error-link")).ToHaveText([]string{
		"Type chess to confirm: type chess to confirm", "Reason: say why, for the audit log"}))
	if got := activeElementOf(t, page); got != "div#.error-summary" {
		t.Fatalf("focus on %s", got)
	}
	must(t, page.Locator("#reset-form").GetByTestId("error-link").Last().Click())
	must(t, expect.Locator(page.Locator("#p-reason")).ToBeFocused())
}

// TestEditFormShowsFixedSettingsAsText: what was fixed at creation reads as
// text on the edit form, not as controls that seem to work; saving keeps it.
func TestEditFormShowsFixedSettingsAsText(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "raid", Title: "Raid", Order: board.LowerIsBetter, Fields: []board.Field{{Name: "clears", Desc: true}, {Name: "revives"}}})
	page := newPage(t)
	signIn(t, page, a, adminPassword)
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/admin$`)))
	open(t, page, a.URL+"/admin/boards/raid/edit", 200)
	must(t, expect.Locator(page.GetByTestId("fixed-fields")).ToContainText("clears: more is better"))
	must(t, expect.Locator(page.GetByTestId("fixed-fields")).ToContainText("revives: fewer is better"))
	must(t, expect.Locator(page.GetByTestId("fixed-order")).ToContainText("Lower"))
	must(t, expect.Locator(page.GetByTestId("fixed-tie_break")).ToContainText("First to reach the score ranks higher"))
	// No control, enabled or not, for any of them.
	must(t, expect.Locator(page.Locator(`#board-form :is(input, select)[name^="field"], #board-form [name="order"], #board-form [name="tie_break"], #board-form [disabled]`)).ToHaveCount(0))
	_, err := page.Locator("#rank_style").SelectOption(playwright.SelectOptionValues{Values: &[]string{"ordinal"}})
	must(t, err)
	must(t, page.GetByTestId("save-board").Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("Board saved."))
	b := mustBoard(t, a, "raid")
	if b.RankStyle != board.Ordinal || b.Order != board.LowerIsBetter || len(b.Fields) != 2 || !b.Fields[0].Desc || b.Fields[1].Desc {
		t.Fatalf("after saving: %+v", b)
	}
}

// TestAuditLogReads: a board's creation reads as its settings and a score
// change shows every period it wrote, each row a readable height.
func TestAuditLogReads(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	page := newPage(t)
	signIn(t, page, a, adminPassword)
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/admin$`)))
	open(t, page, a.URL+"/admin/audit", 200)
	must(t, expect.Locator(page.GetByTestId("audit-empty")).ToContainText("appears here"))

	open(t, page, a.URL+"/admin/boards/new", 200)
	must(t, page.Locator("#id").Fill("golf"))
	must(t, page.Locator("#title").Fill("Club Golf"))
	must(t, page.Locator("#suffix").Fill(" strokes"))
	_, err := page.Locator("#order").SelectOption(playwright.SelectOptionValues{Values: &[]string{"lower"}})
	must(t, err)
	must(t, page.Locator("#period-month").Check())
	must(t, page.GetByTestId("save-board").Click())
	must(t, expect.Locator(page.GetByTestId("manage-title")).ToHaveText("Club Golf"))
	must(t, expect.Locator(page.Locator(".board-head .meta")).ToContainText("Strokes · lower is better"))
	form := page.GetByTestId("score-form")
	must(t, form.Locator("#s-member").Fill("ann"))
	_, err = form.Locator("#s-op").SelectOption(playwright.SelectOptionValues{Values: &[]string{"set"}})
	must(t, err)
	must(t, form.Locator("#s-value").Fill("72"))
	must(t, form.Locator("#s-name").Fill("Ann Lee"))
	must(t, form.Locator("#s-reason").Fill("round 1"))
	must(t, page.GetByTestId("save-score").Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("Ann Lee (ann) now has 72 strokes (1st)."))

	open(t, page, a.URL+"/admin/audit?board=golf", 200)
	rows := page.GetByTestId("audit-row")
	must(t, expect.Locator(rows).ToHaveCount(2))
	score := rows.Nth(0).Locator(".changes li")
	must(t, expect.Locator(score).ToHaveCount(3)) // week, month, all time
	must(t, expect.Locator(score.Nth(1)).ToContainText("January 2027"))
	must(t, expect.Locator(score.Nth(2)).ToContainText("All time"))
	for i := range 3 {
		must(t, expect.Locator(score.Nth(i)).ToContainText("72 strokes (rank 1)"))
	}
	created := rows.Nth(1)
	must(t, expect.Locator(created).Not().ToContainText(`{"`))
	must(t, expect.Locator(created.Locator(".changes li").First()).ToHaveText(regexp.MustCompile(`^\s*Title\s*Club Golf\s*$`)))
	must(t, expect.Locator(created).ToContainText("Weekly, Monthly, All time"))
	for i := range 2 {
		if b := boxOf(t, page, `[data-testid="audit-row"]:nth-child(`+fmt.Sprint(i+1)+`)`); b.Bottom-b.Top > 360 {
			t.Errorf("audit row %d is %.0f px tall", i, b.Bottom-b.Top)
		}
	}
}
