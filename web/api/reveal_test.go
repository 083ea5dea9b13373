package api_test

import (
	"testing"

	"podium/internal/webtest"
)

// TestAPIScheduledReveal: a freeze can carry its reveal time, and a frozen
// board can be given one later or have it taken off; an unfreeze takes
// it off with the freeze.
func TestAPIScheduledReveal(t *testing.T) {
	f := webtest.New(t)
	key := f.Key("ops", "")
	if status, out, _ := f.Call("POST", "/api/v1/boards", key, `{"id":"ctf","title":"CTF"}`); status != 201 {
		t.Fatalf("create: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/ctf/freeze", key, `{"at":"2099-01-01T10:00:00Z","reveal_at":"2099-01-01T09:00:00Z"}`); status != 422 || webtest.ErrField(out) != "reveal_at" {
		t.Fatalf("a reveal before the freeze: %d %v", status, out)
	}
	status, out, _ := f.Call("PUT", "/api/v1/boards/ctf/freeze", key, `{"at":"2099-01-01T10:00:00Z","reveal_at":"2099-01-01T12:00:00Z"}`)
	if status != 200 || out["freeze_at"] != "2099-01-01T10:00:00Z" || out["reveal_at"] != "2099-01-01T12:00:00Z" {
		t.Fatalf("freeze with a reveal: %d %v", status, out)
	}
	if _, out, _ := f.Call("GET", "/api/v1/boards/ctf", key, ""); out["reveal_at"] != "2099-01-01T12:00:00Z" {
		t.Fatalf("the board: %v", out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/ctf/freeze", key, `{"reveal_at":null}`); status != 200 || out["reveal_at"] != nil {
		t.Fatalf("take the reveal off: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/ctf/freeze", key, `{"reveal_at":"2099-01-02T00:00:00Z"}`); status != 200 || out["reveal_at"] != "2099-01-02T00:00:00Z" {
		t.Fatalf("a reveal set later: %d %v", status, out)
	}
	if status, _, _ := f.Call("DELETE", "/api/v1/boards/ctf/freeze", key, ""); status != 200 {
		t.Fatalf("unfreeze: %d", status)
	}
	if _, out, _ := f.Call("GET", "/api/v1/boards/ctf", key, ""); out["reveal_at"] != nil || out["freeze_at"] != nil {
		t.Fatalf("after the unfreeze: %v", out)
	}
}
