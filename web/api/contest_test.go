package api_test

import (
	"strings"
	"testing"

	"podium/internal/webtest"
)

// TestAPIContestWindow: a board's opens_at and closes_at round-trip, a
// submission outside them is 409 contest_closed saying when, and an
// update without them opens the board.
func TestAPIContestWindow(t *testing.T) {
	f := webtest.New(t)
	key := f.Key("ops", "")
	status, out, _ := f.Call("POST", "/api/v1/boards", key, `{"id":"ctf","title":"CTF","opens_at":"2099-01-01T10:00:00+01:00","closes_at":"2099-01-02T10:00:00Z"}`)
	if status != 201 || out["opens_at"] != "2099-01-01T09:00:00Z" || out["closes_at"] != "2099-01-02T10:00:00Z" {
		t.Fatalf("create: %d %v", status, out)
	}
	status, out, _ = f.Call("POST", "/api/v1/boards/ctf/scores", key, `{"member":"ann","score":1}`)
	if status != 409 || webtest.ErrCode(out) != "contest_closed" || !strings.Contains(webtest.ErrMessage(out), "opens at 2099-01-01T09:00:00Z") {
		t.Fatalf("before the opening: %d %v", status, out)
	}
	status, out, _ = f.Call("POST", "/api/v1/boards/ctf/scores", key, `{"scores":[{"member":"ann","score":1}]}`)
	if status != 409 || webtest.ErrCode(out) != "contest_closed" {
		t.Fatalf("a batch before the opening: %d %v", status, out)
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/ctf/entries", "", ""); status != 200 || out["total"] != 0.0 {
		t.Fatalf("written: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/ctf", key, `{"title":"CTF","closes_at":"2020-01-01T00:00:00Z","opens_at":"2021-01-01T00:00:00Z"}`); status != 422 || webtest.ErrField(out) != "closes_at" {
		t.Fatalf("closing before opening: %d %v", status, out)
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/ctf", key, `{"title":"CTF"}`); status != 200 || out["opens_at"] != nil {
		t.Fatalf("update without a window: %d %v", status, out)
	}
	if status, out, _ := f.Call("POST", "/api/v1/boards/ctf/scores", key, `{"member":"ann","score":1}`); status != 200 {
		t.Fatalf("after the window was taken off: %d %v", status, out)
	}
}
