package pgtest

import (
	"os/exec"
	"strings"
	"testing"
)

var srv *Server

func TestMain(m *testing.M) { Main(m, &srv) }

// query runs sql through psql against url, as a client outside this package would.
func query(t *testing.T, url, sql string) string {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql not on PATH; install the PostgreSQL client (apt-get install -y postgresql-client)")
	}
	out, err := exec.Command(psql, "-X", "-tAc", sql, url).CombinedOutput()
	if err != nil {
		t.Fatalf("psql %s: %v: %s", url, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestDatabase(t *testing.T) {
	a, b := srv.Database(t), srv.Database(t)
	if a == b {
		t.Fatalf("two Database calls gave the same URL %s", a)
	}
	for _, url := range []string{srv.URL, a, b} {
		if got := query(t, url, "select 1"); got != "1" {
			t.Fatalf("select 1 on %s = %q", url, got)
		}
	}
	da, db := query(t, a, "select current_database()"), query(t, b, "select current_database()")
	if da == db || da == "podium" || db == "podium" {
		t.Fatalf("databases not distinct: %q, %q", da, db)
	}
	// A table made in one must not show in the other.
	query(t, a, "create table marker (id int)")
	if got := query(t, b, "select count(*) from pg_tables where tablename = 'marker'"); got != "0" {
		t.Fatalf("table from %s visible in %s", da, db)
	}
}

func TestDbName(t *testing.T) {
	s := &Server{}
	long := strings.Repeat("Sub/Test-Name ", 10)
	for _, n := range []string{"TestX", "TestX/sub case#01", long} {
		got := s.dbName(n)
		if len(got) > 63 || strings.Trim(got, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			t.Errorf("dbName(%q) = %q: not a short plain identifier", n, got)
		}
	}
	if a, b := s.dbName("TestX"), s.dbName("TestX"); a == b {
		t.Error("dbName repeats")
	}
}
