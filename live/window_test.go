package live

import (
	"context"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// A rolling window is live like any period: a write shows up, and so does
// a bucket leaving it (the roller's change is a keyspace notification like
// any other).
func TestRollingWindowIsLive(t *testing.T) {
	f := newLiveFixture(t, Options{})
	ctx := context.Background()
	b, err := f.store.CreateBoard(ctx, board.Board{ID: "rolling", Title: "Rolling", Periods: []board.Kind{board.AllTime, board.Last7d}})
	if err != nil {
		t.Fatal(err)
	}
	by := board.Author{Actor: "test"}
	// Written eight days ago (a store whose clock is behind): in the window
	// until the roller takes its day out.
	past := redisstore.NewStore(f.rdb, redisstore.WithClock(func() time.Time { return time.Now().Add(-8 * 24 * time.Hour) }))
	if _, err := past.Submit(ctx, b.ID, board.Submission{Member: "old", Score: 90}, by); err != nil {
		t.Fatal(err)
	}
	ws := f.dial("board=rolling&period=last7d")
	ws.until("first snapshot", func(s Snapshot) bool { return order(s) == "old:1" })
	if _, err := f.store.Submit(ctx, b.ID, board.Submission{Member: "new", Score: 10}, by); err != nil {
		t.Fatal(err)
	}
	ws.until("the new write", func(s Snapshot) bool { return order(s) == "old:1 new:2" })
	if more, err := f.store.RollWindows(ctx, &b, 100); err != nil || more {
		t.Fatalf("roll: %v %v", more, err)
	}
	ws.until("the old day to leave", func(s Snapshot) bool { return order(s) == "new:1" })
}
