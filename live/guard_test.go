package live

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/board"
)

// TestGuardsAreAskedUntilTheyRefuse: each socket's guard is asked again
// every GuardInterval, in the hub's rounds; a socket whose guard refuses
// ends with 1008, and the others stay.
func TestGuardsAreAskedUntilTheyRefuse(t *testing.T) {
	rdb := srv.Client(t)
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	f := newLiveFixtureOn(t, rdb, Options{GuardInterval: 20 * time.Millisecond})
	f.board("guarded", "ann", 1)
	var mu sync.Mutex
	asked := map[string]int{}
	revoked := map[string]bool{}
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := r.URL.Query().Get("who")
		f.hub.Serve(w, r, Spec{Board: "guarded", Kind: board.AllTime, Limit: 10}, []string{"*"}, who, func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			asked[who]++
			if revoked[who] {
				return errors.New("revoked")
			}
			return nil
		})
	}))
	t.Cleanup(h.Close)
	count := func(who string) int { mu.Lock(); defer mu.Unlock(); return asked[who] }
	dial := func(who string) *websocket.Conn {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		defer cancel()
		c, _, err := websocket.Dial(ctx, strings.Replace(h.URL, "http", "ws", 1)+"/?who="+who, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.CloseNow() })
		return c
	}
	a, b := dial("a"), dial("b")
	ended := make(chan error, 1)
	go func() {
		for {
			if _, _, err := a.Read(context.Background()); err != nil {
				ended <- err
				return
			}
		}
	}()
	go func() {
		for {
			if _, _, err := b.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	eventually(t, "both guards asked three times", func() bool { return count("a") >= 3 && count("b") >= 3 })
	mu.Lock()
	revoked["a"] = true
	mu.Unlock()
	select {
	case err := <-ended:
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Fatalf("a's socket ended with %v, want 1008", err)
		}
	case <-time.After(patience):
		t.Fatal("a's socket outlived its guard's refusal")
	}
	eventually(t, "a's client gone", func() bool { return f.hub.Stats().Clients == 1 })
	stopped, since := count("a"), count("b")
	eventually(t, "b's guard asked three more times", func() bool { return count("b") >= since+3 })
	if f.hub.Stats().Clients != 1 {
		t.Fatal("b's socket ended")
	}
	if n := count("a"); n > stopped+1 { // a round under way may have asked it once more
		t.Fatalf("a's guard was asked %d more times after its socket ended", n-stopped)
	}
}
