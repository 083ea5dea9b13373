package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"podium/access"
	"podium/app"
	"podium/internal/redistest"
)

// env is an environment of m's variables alone. The archive goes to a file
// of t's own in the test process's folder (the default is ./data, in the
// source tree), so that tests run side by side, and a stopped server does
// not drain (TestDrainBeforeShutdown does).
func env(t *testing.T, m map[string]string) func(string) string {
	archive := filepath.Join(testDir, unsafeName.ReplaceAllString(t.Name(), "_"), "archive.db")
	return func(k string) string {
		if k == "ARCHIVE_PATH" && m[k] == "" {
			return archive
		}
		if k == "DRAIN_PERIOD" && m[k] == "" {
			return "0s"
		}
		return m[k]
	}
}

// testDir holds the tests' archives; TestMain removes it.
var testDir = filepath.Join(os.TempDir(), fmt.Sprintf("podium-cmd-web-test-%d", os.Getpid()))

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

func TestMain(m *testing.M) {
	passwordCost = bcrypt.MinCost
	flag.Parse()
	// Most of these tests wait: for a demo's next write, a sign-in delay, a
	// Cluster or a Sentinel to fail over. Each has servers of its own, so
	// unless -parallel says otherwise, twice GOMAXPROCS run at a time.
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	code := m.Run()
	os.RemoveAll(testDir)
	os.Exit(code)
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	if cfg, err := app.ParseConfig(nil, func(string) string { return "" }, io.Discard); err != nil || cfg.Drain != 5*time.Second || cfg.BodyTimeout != 30*time.Second {
		t.Fatalf("default drain and body timeout: %v %v %v", cfg.Drain, cfg.BodyTimeout, err)
	}
	cfg, err := app.ParseConfig(nil, env(t, nil), io.Discard)
	if err != nil || cfg.Addr != ":8080" || cfg.RedisURL != "" || cfg.Demo || !slices.Equal(cfg.EmbedOrigins, []string{"*"}) || cfg.TimeZone != "UTC" || cfg.Shutdown != 10*time.Second {
		t.Fatalf("defaults: %+v %v", cfg, err)
	}
	cfg, err = app.ParseConfig([]string{"--addr", ":9000", "--demo"}, env(t, map[string]string{
		"ADDR": ":7000", "DEMO": "0", "REDIS_URL": "redis://:secret@cache:6379/2", "EMBED_ORIGINS": "https://a.example, https://b.example/",
		"BASE_URL": "https://scores.example.com/", "LOG_FORMAT": "json", "LOG_LEVEL": "debug", "DEFAULT_TZ": "Europe/Paris",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":9000" || !cfg.Demo || cfg.BaseURL != "https://scores.example.com" || !slices.Equal(cfg.EmbedOrigins, []string{"https://a.example", "https://b.example"}) || cfg.LogFormat != "json" || cfg.TimeZone != "Europe/Paris" {
		t.Fatalf("flags over env: %+v", cfg)
	}
	cfg, err = app.ParseConfig(nil, env(t, map[string]string{"EMBED_ORIGINS": "https://a.example,null", "METRICS_ADDR": "127.0.0.1:9090", "METRICS_TOKEN": "0123456789abcdef"}), io.Discard)
	if err != nil || !slices.Equal(cfg.EmbedOrigins, []string{"https://a.example", "null"}) || cfg.MetricsAddr != "127.0.0.1:9090" || cfg.MetricsToken != "0123456789abcdef" {
		t.Fatalf("null origin and metrics: %+v %v", cfg, err)
	}
	bad := []struct {
		args []string
		env  map[string]string
		says string
	}{
		{[]string{"--timezone", "Mars/Base"}, nil, "DEFAULT_TZ"},
		{nil, map[string]string{"DEMO": "maybe"}, "DEMO"},
		{nil, map[string]string{"REDIS_URL": "http://x:secret@host"}, "REDIS_URL"},
		{nil, map[string]string{"EMBED_ORIGINS": "blog.example.com"}, "EMBED_ORIGINS"},
		{nil, map[string]string{"EMBED_ORIGINS": "https://x.example; script-src *"}, "EMBED_ORIGINS"},
		{[]string{"--base-url", "scores.example.com"}, nil, "BASE_URL"},
		{[]string{"--log-format", "xml"}, nil, "LOG_FORMAT"},
		{[]string{"--shutdown-timeout", "soon"}, nil, "SHUTDOWN_TIMEOUT"},
		{[]string{"--drain-period", "-1s"}, nil, "DRAIN_PERIOD"},
		{nil, map[string]string{"BODY_TIMEOUT": "0s"}, "BODY_TIMEOUT"},
		{[]string{"--live-tick", "1ms"}, nil, "LIVE_TICK"},
		{nil, map[string]string{"METRICS_ADDR": "9090"}, "METRICS_ADDR"},
		{nil, map[string]string{"METRICS_TOKEN": "short"}, "METRICS_TOKEN"},
		{[]string{"--nope"}, nil, "flag provided but not defined"},
		{[]string{"extra"}, nil, "unexpected argument"},
	}
	for _, tc := range bad {
		_, err := app.ParseConfig(tc.args, env(t, tc.env), io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%v %v: %v, want an error naming %s", tc.args, tc.env, err, tc.says)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("error leaks a password: %v", err)
		}
	}
	var help bytes.Buffer
	if _, err := app.ParseConfig([]string{"--help"}, env(t, nil), &help); err == nil || !strings.Contains(help.String(), "EMBED_ORIGINS") {
		t.Fatalf("help: %v\n%s", err, help.String())
	}
}

// TestRunServesAndShutsDown starts the binary's run on the embedded store with
// the demo, checks it serves, then cancels as SIGTERM would.
func TestRunServesAndShutsDown(t *testing.T) {
	t.Parallel()
	s := serve(t, []string{"--demo"}, nil)
	addr := strings.TrimPrefix(s.base, "http://")
	first, _, _ := strings.Cut(s.log.String(), "\n")
	if !strings.Contains(first, "embedded in-memory store") {
		t.Fatalf("first log line does not say the store is embedded: %s", first)
	}
	storeAddr := regexp.MustCompile(`addr=(\S+)`).FindStringSubmatch(first)
	if storeAddr == nil {
		t.Fatalf("the embedded store's address is not logged: %s", first)
	}
	checkEmbeddedStoreLocked(t, storeAddr[1])
	var pass string
	eventually(t, "the demo admin's password in the log", func() bool {
		if m := regexp.MustCompile(`demo admin created.* password=(\S+)`).FindStringSubmatch(s.log.String()); m != nil {
			pass = m[1]
		}
		return pass != ""
	})
	deadline := time.Now().Add(10 * time.Second)
	var body string
	for time.Now().Before(deadline) {
		res, err := http.Get("http://" + addr + "/")
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			body = string(b)
			if strings.Count(body, `data-testid="board-card"`) == 3 && !strings.Contains(body, "No scores yet") {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, title := range []string{"Neon Arcade", "100 m Sprint", "Monthly Sales"} {
		if !strings.Contains(body, title) {
			t.Fatalf("demo board %q missing from the home page", title)
		}
	}
	// The printed password signs the demo admin in.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := browser.Get("http://" + addr + "/admin/login")
	if err != nil {
		t.Fatal(err)
	}
	form, _ := io.ReadAll(res.Body)
	res.Body.Close()
	token := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(form))
	if token == nil {
		t.Fatal("login form has no token")
	}
	res, err = browser.PostForm("http://"+addr+"/admin/login", url.Values{"user": {"admin"}, "password": {pass}, "csrf": {token[1]}})
	if err != nil || res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin" {
		t.Fatalf("demo admin sign-in: %v %v", res.StatusCode, err)
	}
	res.Body.Close()
	// The demo keeps submitting: the arcade's recent changes move on.
	recent := func() string {
		res, err := http.Get("http://" + addr + "/b/arcade?period=all")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return regexp.MustCompile(`(?s)<ul class="activity".*?</ul>`).FindString(string(b))
	}
	before := recent()
	moved := time.Now().Add(30 * time.Second) // its own deadline: the steps above may have used the first on a loaded machine
	for changed := false; !changed; changed = recent() != before {
		if time.Now().After(moved) {
			t.Fatal("the demo stopped submitting")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Live updates work on the embedded store: the app publishes its own
	// keyspace messages, so a WebSocket gets the snapshot, then diffs.
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	ws, _, err := websocket.Dial(wctx, "ws://"+addr+"/live?board=arcade&period=all&limit=10", nil)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for len(types) < 2 {
		_, data, err := ws.Read(wctx)
		if err != nil {
			t.Fatalf("live frames %v: %v", types, err)
		}
		var head struct{ Type string }
		_ = json.Unmarshal(data, &head)
		types = append(types, head.Type)
	}
	if types[0] != "snapshot" || types[1] != "diff" {
		t.Fatalf("live frames %v", types)
	}
	s.cancel()
	// Shutdown closes the WebSocket with "going away".
	if _, _, err := ws.Read(wctx); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("websocket after shutdown: %v", err)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Fatal("still serving after shutdown")
	}
}

// TestRunOnRedis uses REDIS_URL and refuses an unreachable one clearly.
func TestRunOnRedis(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	s := serve(t, nil, map[string]string{"REDIS_URL": "redis://" + srv.Addr + "/0"}) // ready when it returns
	if err := s.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	err = run(context.Background(), []string{"--addr", "127.0.0.1:0"}, env(t, map[string]string{"REDIS_URL": "redis://127.0.0.1:1/0"}), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "cannot reach Redis at 127.0.0.1:1") {
		t.Fatalf("unreachable Redis: %v", err)
	}
}

func TestCommands(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	getenv := env(t, map[string]string{"REDIS_URL": "redis://" + srv.Addr})
	var out, errOut bytes.Buffer
	if err := runCommand(ctx, []string{"admin", "create", "--user", "alice"}, getenv, strings.NewReader("a long password\n"), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	rdb := srv.Client(t)
	if err := access.NewAccounts(rdb, 0).Verify(ctx, "alice", "a long password"); err != nil {
		t.Fatalf("created admin cannot log in: %v", err)
	}
	if err := runCommand(ctx, []string{"admin", "create", "--user", "bob"}, getenv, strings.NewReader("short\n"), &out, &errOut); err == nil {
		t.Fatal("short password accepted")
	}
	out.Reset()
	if err := runCommand(ctx, []string{"apikey", "create", "--name", "game server"}, getenv, nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	key, err := access.NewKeys(rdb).Authenticate(ctx, strings.TrimSpace(out.String()))
	if err != nil || key.Name != "game server" || !key.AllBoards() {
		t.Fatalf("printed key %q: %+v %v", out.String(), key, err)
	}
	if err := runCommand(ctx, []string{"apikey", "create", "--name", "x", "--board", "nope"}, getenv, nil, &out, &errOut); err == nil {
		t.Fatal("a key for an unknown board")
	}
	if err := runCommand(ctx, []string{"apikey", "create", "--name", "x"}, env(t, nil), nil, &out, &errOut); err == nil || !strings.Contains(err.Error(), "REDIS_URL") {
		t.Fatalf("without REDIS_URL: %v", err)
	}
}

// checkEmbeddedStoreLocked connects to the embedded store's port as any local
// user could: without the password generated at start, every command is
// refused, so nobody can add themselves as an admin.
func checkEmbeddedStoreLocked(t *testing.T, addr string) {
	t.Helper()
	ctx := context.Background()
	for _, pass := range []string{"", "guess"} {
		c := redis.NewClient(&redis.Options{Addr: addr, Password: pass, MaxRetries: -1})
		err := c.HSet(ctx, "podium:admins", "intruder", "$2a$10$abcdefghijklmnopqrstuv").Err()
		c.Close()
		if err == nil || !(strings.Contains(err.Error(), "NOAUTH") || strings.Contains(err.Error(), "WRONGPASS")) {
			t.Fatalf("a client with password %q wrote to the embedded store: %v", pass, err)
		}
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprint(conn, "*4\r\n$4\r\nHSET\r\n$13\r\npodium:admins\r\n$8\r\nintruder\r\n$1\r\nx\r\n")
	line, _ := bufio.NewReader(conn).ReadString('\n')
	if !strings.HasPrefix(line, "-NOAUTH") {
		t.Fatalf("a raw HSET without AUTH got %q, want -NOAUTH", line)
	}
}
