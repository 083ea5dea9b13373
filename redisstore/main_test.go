package redisstore

import (
	"context"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/redistest"
)

var srv *redistest.Server

func TestMain(m *testing.M) {
	checkCalls = true // every script call checks its names against its header
	redistest.Main(m, &srv)
}

// clock is a test clock that moves one millisecond each time it is read, so
// every submission gets its own instant and tie-breaks are predictable.
type clock struct{ ns atomic.Int64 }

func newClock(start time.Time) *clock {
	c := &clock{}
	c.ns.Store(start.UnixNano())
	return c
}

func (c *clock) Now() time.Time { return time.Unix(0, c.ns.Add(int64(time.Millisecond))).UTC() }

func (c *clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// testBoardID makes a board id unique to the running test.
func testBoardID(t testing.TB) string {
	id := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(id) > 60 {
		id = id[len(id)-60:]
		id = strings.TrimLeft(id, "-_")
	}
	return id
}

type fixture struct {
	t     testing.TB
	ctx   context.Context
	rdb   *redis.Client
	store *Store
	clock *clock
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	rdb := srv.Client(t)
	c := newClock(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	return &fixture{t: t, ctx: context.Background(), rdb: rdb, store: NewStore(rdb, WithClock(c.Now)), clock: c}
}

// board creates a board for this test, deleting any left by an earlier run.
func (f *fixture) board(b board.Board) *board.Board {
	f.t.Helper()
	if b.ID == "" {
		b.ID = testBoardID(f.t)
	}
	if b.Title == "" {
		b.Title = "Test " + b.ID
	}
	_ = f.store.DeleteBoard(f.ctx, b.ID)
	created, err := f.store.CreateBoard(f.ctx, b)
	if err != nil {
		f.t.Fatalf("create board: %v", err)
	}
	f.t.Cleanup(func() { _ = f.store.DeleteBoard(context.Background(), created.ID) })
	return &created
}

// tester is the author of the tests' writes, in the boards' audit logs.
var tester = board.Author{Actor: "test"}

func (f *fixture) submit(b *board.Board, member string, score float64, op board.Op) board.Result {
	f.t.Helper()
	r, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: member, Score: score, Op: op}, tester)
	if err != nil {
		f.t.Fatalf("submit %s %v %s: %v", member, score, op, err)
	}
	return r
}

func (f *fixture) page(b *board.Board, k board.Kind, offset, limit int) board.Page {
	f.t.Helper()
	pg, err := f.store.Page(f.ctx, b, b.Current(k, f.clock.Now()), offset, limit)
	if err != nil {
		f.t.Fatalf("page: %v", err)
	}
	return pg
}

// rows renders a page as "rank member score" lines for compact comparisons.
func rows(pg board.Page) []string {
	out := make([]string, len(pg.Entries))
	for i, e := range pg.Entries {
		out[i] = strings.Join([]string{itoa(e.Rank), e.Member, ftoa(e.Score)}, " ")
	}
	return out
}
