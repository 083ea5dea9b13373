package live

import (
	"context"
	"testing"

	"github.com/coder/websocket"
)

// TestDataFromTheBrowserEndsTheSocket: the live socket is read-only; a
// browser that sends a message gets 1008 and its client ends.
func TestDataFromTheBrowserEndsTheSocket(t *testing.T) {
	f := newLiveFixture(t, Options{})
	f.board("quiet", "ann", 1)
	ws := f.dial("board=quiet&period=all")
	ws.until("a snapshot", func(s Snapshot) bool { return s.Total == 1 })
	if err := ws.c.Write(context.Background(), websocket.MessageText, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	for {
		_, _, err := ws.c.Read(context.Background())
		if err == nil {
			continue
		}
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Fatalf("socket ended with %v, want 1008", err)
		}
		break
	}
	eventually(t, "the client to end", func() bool { return f.hub.Stats().Clients == 0 })
}
