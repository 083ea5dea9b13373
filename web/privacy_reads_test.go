package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/webtest"
	"podium/web/request"
)

// periodReads measures what the server reads of one period's standings:
// the size of every Redis reply to a command that names its key.
type periodReads struct {
	key string
	mu  sync.Mutex
	n   int
}

func (r *periodReads) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *periodReads) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		r.count(cmd)
		return err
	}
}

func (r *periodReads) count(cmd redis.Cmder) {
	if v, ok := cmd.(interface{ Val() any }); ok && strings.Contains(fmt.Sprint(cmd.Args()...), r.key) {
		r.mu.Lock()
		r.n += len(fmt.Sprint(v.Val()))
		r.mu.Unlock()
	}
}

func (r *periodReads) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			r.count(cmd)
		}
		return err
	}
}

// of is what answering path read of the period.
func (r *periodReads) of(f *webtest.Server, path string) int {
	r.mu.Lock()
	r.n = 0
	r.mu.Unlock()
	f.Get(path)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// ofSocket is what a live socket of path read of the period for its first
// frame.
func (r *periodReads) ofSocket(t *testing.T, f *webtest.Server, path string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	r.mu.Lock()
	r.n = 0
	r.mu.Unlock()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(f.URL, "http")+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if _, _, err := ws.Read(ctx); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// TestTopOnlyReadsOnlyTheTop: where only the top two places are shown, what
// the server reads to answer a page, an API window, the widget or the wall
// display is the same whatever window is asked for, and however many
// members stand beyond the top: the time an answer takes (5 ms for a window
// of 1,000 hidden members against 0.4 ms for one past the last) told
// anyone how many there are, which the privacy mode hides. Exports too.
func TestTopOnlyReadsOnlyTheTop(t *testing.T) {
	rdb := webtest.Redis(t)
	reads, copies := &periodReads{key: "lb:{big}:all"}, &periodReads{key: "lb:{big}:snap:"}
	rdb.AddHook(reads)
	rdb.AddHook(copies)
	f := webtest.New(t, webtest.Client(rdb), webtest.Live())
	f.Board(board.Board{ID: "big", Title: "Big", TopOnly: 2}, nil)
	var subs []board.Submission
	for i := range 300 {
		subs = append(subs, board.Submission{Member: fmt.Sprintf("m%04d", i), Name: fmt.Sprintf("Member %d", i), Score: float64(i), Op: board.Set})
	}
	if _, err := f.Store.SubmitBatch(t.Context(), "big", subs, board.BatchOptions{By: board.Author{Actor: "test"}, NoRanks: true}); err != nil {
		t.Fatal(err)
	}
	f.Get("/api/v1/boards/big/entries") // the scripts loaded once, first
	// Cursors a key's reader got, in the top and far beyond it.
	key := f.Key("reader", "big")
	var after []string
	for _, limit := range []string{"1", "150"} {
		_, out, _ := f.Call("GET", "/api/v1/boards/big/entries?limit="+limit, key, "")
		next, _ := out["next"].(string)
		after = append(after, "/api/v1/boards/big/entries?limit=1000&after="+next)
	}
	for _, paths := range [][]string{
		append([]string{"/api/v1/boards/big/entries?offset=0&limit=1000", "/api/v1/boards/big/entries?offset=100&limit=1000", "/api/v1/boards/big/entries?offset=5000&limit=1000"}, after...),
		{"/b/big?size=100", "/b/big?page=2&size=100", "/b/big?page=9&size=100"},
		{"/embed/big?limit=50", "/embed/big?limit=2"},
		{"/tv?boards=big&limit=25", "/tv?boards=big&limit=3"},
		{"/b/big/export?format=json", "/api/v1/boards/big/export"},
	} {
		want := reads.of(f, paths[0])
		for _, p := range paths[1:] {
			if got := reads.of(f, p); got != want {
				t.Errorf("%s read %d bytes of the period, %s %d: what is read depends on the members beyond the top", p, got, paths[0], want)
			}
		}
	}
	// A live page of the board: its first frame reads the top, whichever
	// page it is.
	f.Get("/") // warm
	want := reads.ofSocket(t, f, "/live?board=big&period=all&offset=0&limit=100")
	for _, q := range []string{"offset=100&limit=100", "offset=5000&limit=100"} {
		if got := reads.ofSocket(t, f, "/live?board=big&period=all&"+q); got != want {
			t.Errorf("a live page at %s read %d bytes of the period, the first page %d", q, got, want)
		}
	}
	// An export copies a whole period, to read it at one instant: 30 ms
	// for 20,000 members, 1 ms for 10. Where only the top is shown, it
	// reads the top, as the page does, and copies nothing.
	for _, p := range []string{"/b/big/export?format=csv", "/api/v1/boards/big/export?format=json"} {
		if n := copies.of(f, p); n != 0 {
			t.Errorf("%s copied the whole period (%d bytes of replies about its copy)", p, n)
		}
	}
}

// TestExportOfAPersonalLink: where only the top two are shown, dan's
// personal link exports the top two, as pseudonyms, and dan's own row
// whole, and nothing of the others.
func TestExportOfAPersonalLink(t *testing.T) {
	f := classFixture(t, board.Private)
	_, token, err := f.Admin.Links.CreatePersonal(t.Context(), classID, f.MustBoard(t, classID).Created, "zz-dan", "Daniel Dodo", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/b/" + classID + "/export?format=csv", "/api/v1/boards/" + classID + "/export"} {
		res, body := f.Get(path, "Cookie", request.LinkCookie(classID)+"="+token)
		lines := strings.Split(strings.TrimSpace(body), "\n")
		if res.StatusCode != http.StatusOK || len(lines) != 4 || lines[3] != `4,zz-dan,Daniel Dodo,"2,021",2021` || !strings.Contains(lines[1], "anon-") {
			t.Errorf("%s: %d %q", path, res.StatusCode, lines)
		}
		for _, leak := range []string{"zz-cat", "Catherine", "zz-eve", "Evelyn", "zz-ann", "zz-bob"} {
			if strings.Contains(body, leak) {
				t.Errorf("%s shows %q to dan's link", path, leak)
			}
		}
	}
}
