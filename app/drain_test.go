package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
	"podium/web"
)

// TestDrainBeforeShutdown: on the signal the server drains before it shuts
// down. /readyz answers 503 while /healthz stays 200, and a score POSTed
// without an Idempotency-Key on a keep-alive connection opened before the
// signal gets its whole answer, applied once, with Connection: close; the
// server then closes that connection itself, so Shutdown has nothing to
// cut under a request. The drain lasts until the test ends it.
func TestDrainBeforeShutdown(t *testing.T) {
	t.Parallel()
	rs, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rs.Close)
	ctx := context.Background()
	rdb := rs.Client(t)
	cfg, err := ParseConfig(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	store := redisstore.NewStore(rdb)
	admin := NewAdmin(rdb, store, cfg)
	if _, err := store.CreateBoard(ctx, board.Board{ID: "drain", Title: "Drain", Periods: []board.Kind{board.AllTime}}); err != nil {
		t.Fatal(err)
	}
	_, key, err := admin.Keys.Create(ctx, "drain", "", false)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	app := web.New(web.Options{Store: store, Admin: admin, Ready: func(ctx context.Context) error { return rdb.Ping(ctx).Err() }, Logger: quiet})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: app, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	base := "http://" + ln.Addr().String()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second)) // a bound for a broken server, not a timing
	br := bufio.NewReader(conn)
	post := func(score int) (*http.Response, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/boards/drain/scores", strings.NewReader(fmt.Sprintf(`{"member":"ann","score":%d}`, score)))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		if err := req.Write(conn); err != nil {
			t.Fatalf("send a score: %v", err)
		}
		res, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("answer to a score: %v", err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatalf("answer to a score (%d): %v", res.StatusCode, err)
		}
		return res, out
	}
	if res, out := post(1); res.StatusCode != http.StatusOK || res.Close {
		t.Fatalf("before the signal: %d, close %v, %v", res.StatusCode, res.Close, out)
	}

	drained := make(chan time.Time)
	done := make(chan error, 1)
	go func() { done <- shutdown(srv, app, drained, 10*time.Second, quiet) }()
	status := func(path string) int {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s while draining: %v", path, err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	eventually(t, "/readyz to answer 503", func() bool { return status("/readyz") == http.StatusServiceUnavailable })
	if code := status("/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz while draining: %d", code)
	}
	res, out := post(2)
	if res.StatusCode != http.StatusOK || !res.Close { // Close: the answer said Connection: close
		t.Fatalf("while draining: %d, Connection: close %v, %v", res.StatusCode, res.Close, out)
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("the connection after an answer with Connection: close: %v, want EOF", err)
	}
	if got := fmt.Sprint(out["result"]); !strings.Contains(got, "after:map[rank:1 score:3]") {
		t.Fatalf("the answer while draining, after 1 and 2: %s", got)
	}

	close(drained)
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("serve: %v", err)
	}
}
