package redisstore

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// TestRecentOfManyBoards: many boards' recent changes come back each in
// its place, in two round trips whatever their number; a board whose list
// cannot be read has its own error and the others are read.
func TestRecentOfManyBoards(t *testing.T) {
	f := newFixture(t)
	var bs []*board.Board
	for _, id := range []string{"recent-a", "recent-b", "recent-c"} {
		b := f.board(board.Board{ID: id, Title: id})
		bs = append(bs, b)
	}
	f.submit(bs[0], "ann", 5, board.Incr)
	f.submit(bs[0], "bob", 7, board.Incr)
	f.submit(bs[2], "cat", 9, board.Incr)
	if err := f.rdb.Set(f.ctx, recentKey(bs[1].ID), "not a list", 0).Err(); err != nil { // written from outside
		t.Fatal(err)
	}
	calls := 0
	f.rdb.AddHook(countHook{&calls})
	got := f.store.RecentOf(f.ctx, bs, 8)
	if calls != 2 {
		t.Fatalf("%d round trips for 3 boards, want 2", calls)
	}
	if len(got[0].Activities) != 2 || got[0].Activities[0].Member != "bob" || got[0].Activities[1].Name != "ann" || got[0].Err != nil {
		t.Fatalf("board a: %+v", got[0])
	}
	if got[1].Err == nil {
		t.Fatalf("board b, whose list is a string: %+v, want an error", got[1])
	}
	if len(got[2].Activities) != 1 || got[2].Activities[0].Member != "cat" || got[2].Err != nil {
		t.Fatalf("board c: %+v", got[2])
	}
}

// countHook counts the round trips a client makes: commands and pipelines.
type countHook struct{ n *int }

func (h countHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { *h.n++; return next(ctx, cmd) }
}

func (h countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { *h.n++; return next(ctx, cmds) }
}
