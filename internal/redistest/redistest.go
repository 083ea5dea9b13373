// Package redistest starts private redis-server processes for tests: one per
// test package, on a free loopback port, with nothing saved to disk and
// keyspace notifications on. Tests never touch a shared Redis.
package redistest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a private redis-server.
type Server struct {
	Addr  string
	port  int
	dir   string
	cmd   *exec.Cmd
	extra []string
	conf  string // a sentinel's configuration file: the server runs as a sentinel
}

// Start launches redis-server on a free port. It fails with instructions when
// redis-server is not installed: a skipped test would hide the gap.
func Start() (*Server, error) { return StartWith() }

// StartWith launches redis-server with extra arguments after the defaults,
// e.g. "--rename-command", "CONFIG", "" to act like a managed Redis.
func StartWith(extra ...string) (*Server, error) { return start("", extra...) }

// start launches a redis-server, or a sentinel when monitor is a sentinel
// configuration's text (written to a file the sentinel may rewrite).
func start(monitor string, extra ...string) (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redistest: redis-server not on PATH; install it (apt-get install -y redis-server) or run `make test`, which does")
	}
	dir, err := os.MkdirTemp("", "redistest-*")
	if err != nil {
		return nil, fmt.Errorf("redistest: %w", err)
	}
	s := &Server{dir: dir, extra: extra}
	if monitor != "" {
		s.conf = filepath.Join(dir, "sentinel.conf")
		if err := os.WriteFile(s.conf, []byte(monitor), 0o600); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("redistest: %w", err)
		}
	}
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s.port = port
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if lastErr = s.launch(bin); lastErr == nil {
			return s, nil
		}
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

func (s *Server) launch(bin string) error {
	args := []string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir,
		"--notify-keyspace-events", "Kzghx",
		"--logfile", filepath.Join(s.dir, "redis.log"),
	}
	if s.conf != "" {
		args = []string{s.conf, "--sentinel", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
			"--dir", s.dir, "--logfile", filepath.Join(s.dir, "redis.log")}
	}
	cmd := exec.Command(bin, append(args, s.extra...)...)
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("redistest: start redis-server: %w", err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", s.Addr, 100*time.Millisecond)
		if err == nil {
			_, _ = c.Write([]byte("PING\r\n"))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "+PONG") {
				return nil
			}
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	return fmt.Errorf("redistest: redis-server on %s did not answer: %s", s.Addr, lastLines(string(log), 5))
}

// Stop ends the server (for fault tests: Restart brings it back on the same port).
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// Restart starts a stopped server again on the same address, empty.
func (s *Server) Restart() error {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return err
	}
	return s.launch(bin)
}

// Close stops the server and removes its directory.
func (s *Server) Close() {
	s.Stop()
	os.RemoveAll(s.dir)
}

// Client is a new go-redis client of this server; the test closes it at
// cleanup. It fails the test when a script or transaction names keys of more
// than one hash slot (see SlotGuard): what works here must work on a Cluster.
func (s *Server) Client(tb testing.TB) *redis.Client {
	tb.Helper()
	return s.ClientDB(tb, 0)
}

// ClientDB is Client on logical database db (start the server with
// "--databases", N for more than 16): tests that run in parallel on one
// server can each have a database of their own.
func (s *Server) ClientDB(tb testing.TB, db int) *redis.Client {
	tb.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.Addr, DB: db})
	guard(tb, c)
	tb.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		tb.Fatalf("redistest: ping %s: %v", s.Addr, err)
	}
	return c
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

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("redistest: free port: %w", err)
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
