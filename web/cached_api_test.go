package web_test

import (
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
)

// TestCachedAPIBodies: the API's pages and around-me of an open period are
// encoded once per cached answer and handed to every reader (board.Memo).
// The bytes a hit answers are the bytes a miss answered; a write through
// this replica and one made behind it (a plain ZINCRBY) each show in the
// next body (at once, and within the bound); ?pretty is its own answer; and
// on a board with a privacy mode a key's whole body is never what a
// keyless reader gets, whichever reads first.
func TestCachedAPIBodies(t *testing.T) {
	f := webtest.New(t, webtest.Live())
	f.Board(board.Board{ID: "memo", Title: "Memo"}, map[string]float64{"ann": 30, "bob": 20, "cid": 10})
	f.Board(board.Board{ID: "shy", Title: "Shy", Names: board.Initials}, nil)
	if _, err := f.Store.Submit(t.Context(), "shy", board.Submission{Member: "ann", Name: "Ann Arbor", Score: 5, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	key := f.Key("reader", "")
	waitFor(t, "the hub to be fresh", f.App.Hub.Fresh)

	get := func(path, key string) string {
		t.Helper()
		status, body := f.RawCall("GET", path, key, nil)
		if status != 200 {
			t.Fatalf("GET %s: %d %s", path, status, body)
		}
		return body
	}
	for _, path := range []string{"/api/v1/boards/memo/entries", "/api/v1/boards/memo/members/bob/around?radius=1"} {
		// A busy machine may delay the hub's pongs past a tick, when the
		// cache serves nothing older than a tick: wait for two reads within it.
		var first, second string
		waitFor(t, path+": a second read served from the cache", func() bool {
			first = get(path, "")
			hits := f.App.Cache.Stats().Hits
			second = get(path, "")
			return f.App.Cache.Stats().Hits != hits
		})
		if first != second || !strings.HasSuffix(first, "}\n") {
			t.Errorf("%s: a hit's body differs from the miss's:\n%s\n%s", path, first, second)
		}
		if pretty := get(path+sep(path)+"pretty", ""); pretty == first || !strings.Contains(pretty, "\n  ") {
			t.Errorf("%s?pretty: %q", path, pretty)
		}
	}

	if _, err := f.Store.Submit(t.Context(), "memo", board.Submission{Member: "cid", Score: 100, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if body := get("/api/v1/boards/memo/entries", ""); !strings.Contains(body, `"rank":1,"member":"cid"`) {
		t.Fatalf("own write not in the next body: %s", body)
	}
	if err := f.Redis.ZIncrBy(t.Context(), "lb:{memo}:all", 1000, "bob").Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "an outside write in the body", func() bool {
		return strings.Contains(get("/api/v1/boards/memo/entries", ""), `"rank":1,"member":"bob"`)
	})

	for _, keyFirst := range []bool{true, false} {
		f.App.Cache.Flush()
		readers := []string{"", key}
		if keyFirst {
			readers = []string{key, ""}
		}
		for range 2 {
			for _, k := range readers {
				body := get("/api/v1/boards/shy/entries", k)
				if whole := strings.Contains(body, "Ann Arbor"); whole != (k != "") {
					t.Fatalf("key first %v, reader with key %v: whole names %v: %s", keyFirst, k != "", whole, body)
				}
			}
		}
	}
}

func sep(path string) string {
	if strings.Contains(path, "?") {
		return "&"
	}
	return "?"
}

// waitFor polls cond until it holds, or fails the test after a deadline
// long enough for a loaded machine.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
