package web_test

import (
	"net/http"
	"strings"
	"testing"

	"podium/internal/webtest"
)

// TestOrgSignInIsNoOneElse: a verified address that Unicode would fold into
// a console user's name (the Kelvin sign K for k) is not that user: the
// person gets no console, let alone the site admin's.
func TestOrgSignInIsNoOneElse(t *testing.T) {
	f, m := orgFixture(t)
	if err := f.Admin.Accounts.Create(t.Context(), "kate@school.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	c, end, code := orgSignIn(t, f, m, person("\u212Aate@school.example", true), "/admin")
	if code == http.StatusSeeOther && end == "/admin" {
		if status, body := get(t, c, f.URL+"/admin/users"); status == http.StatusOK || strings.Contains(body, "kate@school.example") {
			t.Errorf("someone whose address only folds to kate's is in kate's console: %d %q", status, webtest.Excerpt(body))
		}
	}
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}
