package admin_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/webtest"
	"podium/redisstore"
)

// TestAuditCursor: a ?before= that is not an audit entry id is the visitor's
// mistake: 400 with a message, not a 500 from Redis.
func TestAuditCursor(t *testing.T) {
	f := webtest.New(t)
	if err := f.Admin.Accounts.Create(t.Context(), "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a := f.Browser()
	if res := a.Login("alice", "correct horse battery"); res.StatusCode != 303 {
		t.Fatalf("login: %d", res.StatusCode)
	}
	tests := []struct {
		before string
		status int
		says   string
	}{
		{"garbage", 400, "before must be a place in the log"},
		{"-1", 400, "before must be a place in the log"},
		{"99999999999999999999-0", 400, "before must be a place in the log"},
		{"1-x", 400, "before must be a place in the log"},
		{"1767225600000-0", 200, "Audit log"},
		{"0-0", 200, "Audit log"},
	}
	for _, tc := range tests {
		t.Run(tc.before, func(t *testing.T) {
			res, body := a.Get("/admin/audit?before=" + url.QueryEscape(tc.before))
			if res.StatusCode != tc.status || !strings.Contains(body, tc.says) {
				t.Fatalf("before=%s: %d, want %d with %q in:\n%s", tc.before, res.StatusCode, tc.status, tc.says, webtest.Excerpt(body))
			}
		})
	}
}

// TestAuditLogInWords: definitions read as settings, not JSON; a score
// change shows every period; entries written before either (a score entry
// of one period, a definition of an older form) still show.
func TestAuditLogInWords(t *testing.T) {
	f := webtest.New(t)
	a := f.SignedIn()
	if _, page := a.Get("/admin/audit"); !strings.Contains(page, "No changes recorded yet") || !strings.Contains(page, "scores set, added, subtracted") {
		t.Fatal("the empty log does not say what will appear in it")
	}
	if _, page := a.Get("/admin/audit?actor=nobody"); !strings.Contains(page, "Nothing is recorded by nobody") {
		t.Fatal("an empty filtered log does not say what it was filtered by")
	}
	a.Get("/admin/boards/new")
	form := boardForm(a.CSRF)
	form.Set("suffix", " pts")
	form["periods"] = []string{"week", "month", "all"}
	a.Post("/admin/boards/new", form)
	a.Get("/admin/boards/quiz/edit")
	a.Post("/admin/boards/quiz/edit", url.Values{"csrf": {a.CSRF}, "title": {"Friday Quiz"}, "format": {"integer"}, "suffix": {" pts"},
		"periods": {"week", "month", "all"}, "default_period": {"week"}, "time_zone": {"UTC"}, "rank_style": {"dense"}, "retention": {"2"}})
	a.Get("/admin/boards/quiz")
	a.Post("/admin/boards/quiz/score", url.Values{"csrf": {a.CSRF}, "member": {"ann"}, "op": {"set"}, "value": {"12"}, "reason": {"round 1"}})
	a.Post("/admin/boards/quiz/score", url.Values{"csrf": {a.CSRF}, "member": {"ann"}, "op": {"incr"}, "value": {"5"}, "reason": {"bonus"}})
	// An entry as the board's script wrote them before every period was kept.
	rdb := webtest.Redis(t)
	week := board.PeriodAt(board.Weekly, f.Store.Now(), time.UTC)
	label, weekName := week.String(), week.Short()
	if err := rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: redisstore.AuditStream("quiz"), Values: []any{"t", "1", "actor", "key:old (k1)", "action", "scores",
		"board", "quiz", "period", label, "reason", "", "fmt", "integer", "suf", " pts", "items", "carl\tset\t3\t\t\t3\t1\t"}}).Err(); err != nil {
		t.Fatal(err)
	}
	_, page := a.Get("/admin/audit?board=quiz")
	page = webtest.Unescape(page)
	if strings.Contains(page, `{"id"`) {
		t.Fatal("a definition is shown as JSON")
	}
	rows := strings.Split(page, `data-testid="audit-row"`)[1:]
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	text := func(s string) string {
		s = regexp.MustCompile(`<[^>]+>`).ReplaceAllString(s, " ")
		return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "→ ", "")
	}
	// Newest first; a line reads "what before to after" (the arrow is for the eye).
	for i, want := range [][]string{
		{"score.set", "carl", weekName + " (none) to 3 pts (rank 1)"},
		{"score.incr", weekName + " 12 pts (rank 1) to 17 pts (rank 1) January 2027 12 pts (rank 1) to 17 pts (rank 1) All time 12 pts (rank 1) to 17 pts (rank 1)"},
		{"score.set", weekName + " (none) to 12 pts (rank 1)"},
		{"board.update", "Title Quiz to Friday Quiz Rank numbers Competition to Dense edited"},
		{"board.create", "Title Quiz", `After the number " pts"`, "Periods Weekly, Monthly, All time", "Opens on Weekly", "Better scores are Higher"},
	} {
		got := text(rows[i])
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("row %d lacks %q:\n%s", i, w, got)
			}
		}
	}
	if strings.Contains(text(rows[3]), "Periods") {
		t.Error("an edit lists a setting it did not change")
	}
}
