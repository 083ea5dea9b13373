package web_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/app"
	"podium/board"
	"podium/internal/webtest"
)

// TestSlowBodyIsCutOff: an anonymous POST /admin/login that declares
// Content-Length: 60000 and trickles its body a byte at a time gets 408
// and its connection closed once the bound (1 s here) has passed: trickling
// does not extend it. A live WebSocket opened before it is still served
// after it, open longer than the same bound.
func TestSlowBodyIsCutOff(t *testing.T) {
	f := webtest.New(t, webtest.Live(), webtest.Configure(func(c *app.Config) { c.BodyTimeout = time.Second }))
	b := f.Board(board.Board{ID: "chess", Title: "Chess"}, map[string]float64{"ann": 2, "bob": 1})
	h, adm := f.HTTP, f.Admin
	// Bounds for a broken server, not timings.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(h.URL, "http")+"/live?board=chess&period=all", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if _, frame, err := ws.Read(ctx); err != nil || !strings.Contains(string(frame), `"snapshot"`) {
		t.Fatalf("first live frame: %s, %v", frame, err)
	}

	_, key, err := adm.Keys.Create(ctx, "game", "", false)
	if err != nil {
		t.Fatal(err)
	}
	// Each case waits out the bound on a connection of its own: side by
	// side, they wait for it together.
	if !t.Run("trickled", func(t *testing.T) {
		for _, tc := range []struct {
			name, path, headers string
			status              int
			says                string
		}{
			{"console", "/admin/login", "Content-Type: application/x-www-form-urlencoded\r\n", 408, "did not arrive in time"},
			{"API", "/api/v1/boards/chess/scores", "Content-Type: application/json\r\nAuthorization: Bearer " + key + "\r\n", 408, `"code":"request_timeout"`},
			// A header does not lift the bound: only a request without a body
			// (a WebSocket handshake) is left alone.
			{"Upgrade header", "/admin/login", "Content-Type: application/x-www-form-urlencoded\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n", 408, "did not arrive in time"},
			// Without a key the API answers at once, reading nothing, and the
			// connection closes all the same.
			{"API without a key", "/api/v1/boards/chess/scores", "Content-Type: application/json\r\n", 401, "unauthorized"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				status, body := trickle(t, h.Listener.Addr().String(), tc.path, tc.headers)
				if status != tc.status || !strings.Contains(body, tc.says) {
					t.Fatalf("%s: POST %s, trickled: %d %s", tc.name, tc.path, status, body)
				}
			})
		}
	}) {
		return
	}

	// A body longer than its route takes is refused by its length, unread:
	// nothing is held waiting for it.
	for _, path := range []string{"/admin/login", "/api/v1/boards/chess/scores"} {
		conn, err := net.Dial("tcp", h.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound for a broken server
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1500000\r\n\r\n", path, key)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		conn.Close()
		if err != nil || res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("POST %s declaring 1.5 MB and sending nothing: %v %v", path, res, err)
		}
	}

	// The WebSocket has been open longer than the bound: it still gets
	// what changes.
	if _, err := f.Store.Submit(ctx, b.ID, board.Submission{Member: "bob", Score: 5, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	for {
		_, frame, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("the live socket after the bound: %v", err)
		}
		if strings.Contains(string(frame), `"m":"bob"`) && strings.Contains(string(frame), `"v":5`) {
			break
		}
	}
}

// trickle POSTs to path a body that declares 60000 bytes and sends one
// every 50 ms, and returns the answer, which must come with
// Connection: close and be followed by the end of the connection.
func trickle(t *testing.T, addr, path, headers string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound for a broken server
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Length: 60000\r\n\r\nu", path, addr, headers)
	stop := make(chan struct{})
	trickled := make(chan int)
	go func() {
		n := 1
		defer func() { trickled <- n }()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte("x")); err != nil {
					return
				}
				n++
			}
		}
	}()
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	close(stop)
	sent := <-trickled
	if err != nil {
		t.Fatalf("POST %s: no answer to a body trickled past the bound (%d of 60000 bytes sent): %v", path, sent, err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !res.Close {
		t.Fatalf("POST %s, trickled: %d without Connection: close", path, res.StatusCode)
	}
	if _, err := br.ReadByte(); err == nil {
		t.Fatalf("POST %s, trickled: the connection stays open after the answer", path)
	}
	return res.StatusCode, string(body)
}
