// Package pgtest starts private PostgreSQL servers for tests: one per test
// package, in its own temporary folder on a free loopback port, with fsync
// off. Tests never touch a shared PostgreSQL, and each test gets its own
// empty database from Database.
package pgtest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// Server is a private PostgreSQL server. URL points at its "podium" database.
type Server struct {
	URL string

	port     int
	password string // the superuser's, random
	dir      string // temporary folder: data/, the unix socket, server.log
	bin      string // folder of initdb, pg_ctl and postgres
	runAs    string // user that runs the server tools when we are root
	dbCount  atomic.Int64
	closed   bool
}

const superuser = "podium"

// Start runs initdb in a fresh temporary folder and starts postgres on a free
// port. It fails with instructions when PostgreSQL is not installed: a
// skipped test would hide the gap.
func Start() (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin}
	if err := s.makeDir(); err != nil {
		return nil, err
	}
	// A password, not trust: the server listens on loopback, where any
	// local user could otherwise connect as its superuser.
	pw := make([]byte, 16)
	_, _ = rand.Read(pw)
	s.password = hex.EncodeToString(pw)
	pwfile := filepath.Join(s.dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.password+"\n"), 0o600); err != nil {
		os.RemoveAll(s.dir)
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if s.runAs != "" {
		if err := chownTo(pwfile, s.runAs); err != nil {
			os.RemoveAll(s.dir)
			return nil, err
		}
	}
	out, err := s.server("initdb", "-D", s.data(), "-A", "scram-sha-256", "--pwfile", pwfile, "-U", superuser,
		"-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput()
	os.Remove(pwfile)
	if err != nil {
		os.RemoveAll(s.dir)
		hint := ""
		if s.runAs != "" {
			hint = " (user postgres must be able to reach " + s.dir + "; try TMPDIR=/tmp)"
		}
		return nil, fmt.Errorf("pgtest: initdb failed%s: %v: %s", hint, err, lastLines(string(out), 5))
	}

	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			os.RemoveAll(s.dir)
			return nil, err
		}
		s.port = port
		if lastErr = s.launch(); lastErr == nil {
			break
		}
	}
	if lastErr != nil {
		os.RemoveAll(s.dir)
		return nil, lastErr
	}
	s.URL = s.urlFor("podium")
	if out, err := s.client("createdb", "podium").CombinedOutput(); err != nil {
		s.Close()
		return nil, fmt.Errorf("pgtest: createdb podium: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return s, nil
}

// makeDir makes the server's folder; as root, for user postgres, which
// runs the tools (PostgreSQL refuses to run as root) and must own it.
func (s *Server) makeDir() error {
	var err error
	if os.Geteuid() != 0 {
		if s.dir, err = os.MkdirTemp("", "pgtest-*"); err != nil {
			return fmt.Errorf("pgtest: %w", err)
		}
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("pgtest: running as root, and PostgreSQL refuses root; no \"postgres\" user to run it as (installing Debian's postgresql package creates one, see scripts/need-postgres.sh), or run the tests as an ordinary user")
	}
	if _, err := exec.LookPath("runuser"); err != nil {
		return fmt.Errorf("pgtest: running as root needs runuser (util-linux) to start PostgreSQL as user postgres")
	}
	s.runAs = u.Username
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if s.dir, err = os.MkdirTemp("", "pgtest-*"); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if err := os.Chown(s.dir, uid, gid); err != nil {
		os.RemoveAll(s.dir)
		return fmt.Errorf("pgtest: give %s to user postgres: %w", s.dir, err)
	}
	return nil
}

// launch starts postgres on s.port; pg_ctl -w returns once it accepts
// connections, or fails quickly when the port was taken meanwhile.
func (s *Server) launch() error {
	opts := strings.Join([]string{
		// pg_ctl hands these to sh, hence the quoting.
		"-h 127.0.0.1", "-k " + shellQuote(s.dir), "-p " + strconv.Itoa(s.port),
		"-F", // fsync off: a test server's data may be lost
		"-c synchronous_commit=off", "-c full_page_writes=off",
		"-c wal_level=minimal", "-c max_wal_senders=0",
		"-c shared_buffers=32MB", "-c autovacuum=off",
		"-c logging_collector=off",
	}, " ")
	log := filepath.Join(s.dir, "server.log")
	os.Remove(log)
	out, err := s.server("pg_ctl", "start", "-w", "-t", "30", "-s",
		"-D", s.data(), "-l", log, "-o", opts).CombinedOutput()
	if err != nil {
		s.stop()
		logText, _ := os.ReadFile(log)
		return fmt.Errorf("pgtest: postgres on port %d did not start: %v: %s %s",
			s.port, err, strings.TrimSpace(string(out)), lastLines(string(logText), 5))
	}
	return nil
}

// Close stops the server and removes its folder.
func (s *Server) Close() {
	if s.closed {
		return
	}
	s.closed = true
	s.stop()
	os.RemoveAll(s.dir)
}

// stop ends only the postmaster of this folder: pg_ctl finds it through
// postmaster.pid; if pg_ctl fails we kill that pid ourselves.
func (s *Server) stop() {
	pidFile := filepath.Join(s.data(), "postmaster.pid")
	if _, err := os.Stat(pidFile); err != nil {
		return
	}
	if s.server("pg_ctl", "stop", "-m", "immediate", "-w", "-t", "10", "-s", "-D", s.data()).Run() == nil {
		return
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil || pid <= 0 {
		return
	}
	// Make sure the pid is still our postmaster, not a reused number.
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), s.data()) {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// Database creates a fresh empty database for this test and returns its URL;
// it is dropped when the test ends.
func (s *Server) Database(tb testing.TB) string {
	tb.Helper()
	name := s.dbName(tb.Name())
	if out, err := s.client("createdb", name).CombinedOutput(); err != nil {
		tb.Fatalf("pgtest: createdb %s: %v: %s", name, err, strings.TrimSpace(string(out)))
	}
	tb.Cleanup(func() {
		// --force ends connections the test left open.
		if out, err := s.client("dropdb", "--if-exists", "--force", name).CombinedOutput(); err != nil {
			tb.Errorf("pgtest: dropdb %s: %v: %s", name, err, strings.TrimSpace(string(out)))
		}
	})
	return s.urlFor(name)
}

var notIdent = regexp.MustCompile(`[^a-z0-9_]+`)

// dbName is the test name made a plain identifier, plus a counter so
// subtests and repeated calls never collide; at most 63 bytes, PostgreSQL's
// identifier limit.
func (s *Server) dbName(test string) string {
	base := strings.Trim(notIdent.ReplaceAllString(strings.ToLower(test), "_"), "_")
	suffix := "_" + strconv.FormatInt(s.dbCount.Add(1), 10)
	if max := 63 - len("t_") - len(suffix); len(base) > max {
		base = base[:max]
	}
	return "t_" + base + suffix
}

func (s *Server) urlFor(db string) string {
	return fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable",
		superuser, s.password, net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), db)
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

// server is a command for initdb or pg_ctl, run as user postgres when we are root.
func (s *Server) server(tool string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, tool)
	var cmd *exec.Cmd
	if s.runAs != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.runAs, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = s.dir // the caller's folder may be closed to user postgres
	return cmd
}

// client is a command for createdb or dropdb against this server over TCP.
// PG* variables are dropped so a developer's settings cannot redirect it.
func (s *Server) client(tool string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, tool)
	if _, err := os.Stat(path); err != nil {
		if p, err := exec.LookPath(tool); err == nil {
			path = p
		}
	}
	conn := []string{"-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "-U", superuser, "-w"}
	cmd := exec.Command(path, append(conn, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "PGPASSWORD="+s.password)
	return cmd
}

// Main runs a package's tests with one private server, exported through
// *srv; use it from TestMain.
func Main(m *testing.M, srv **Server) {
	s, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*srv = s
	code := m.Run()
	s.Close()
	os.Exit(code)
}

// findBin picks the newest /usr/lib/postgresql/<version>/bin (Debian keeps
// the server tools off PATH), else the folder of initdb on PATH.
func findBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	var found []string
	for _, d := range dirs {
		if hasServerTools(d) {
			found = append(found, d)
		}
	}
	if len(found) > 0 {
		sort.Slice(found, func(i, j int) bool {
			return versionLess(filepath.Base(filepath.Dir(found[i])), filepath.Base(filepath.Dir(found[j])))
		})
		return found[len(found)-1], nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && hasServerTools(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
		if hasServerTools(filepath.Dir(p)) {
			return filepath.Dir(p), nil
		}
	}
	return "", fmt.Errorf("pgtest: PostgreSQL server not found (initdb, pg_ctl, postgres under /usr/lib/postgresql/*/bin or on PATH); install it (apt-get install -y postgresql) or run scripts/need-postgres.sh, which does")
}

func hasServerTools(dir string) bool {
	for _, t := range []string{"initdb", "pg_ctl", "postgres"} {
		if fi, err := os.Stat(filepath.Join(dir, t)); err != nil || fi.IsDir() {
			return false
		}
	}
	return true
}

// versionLess orders "9.6" < "15" < "16" numerically.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// chownTo gives a file to a user, by name.
func chownTo(path, name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(path, uid, gid); err != nil {
		return fmt.Errorf("pgtest: give %s to %s: %w", path, name, err)
	}
	return nil
}
