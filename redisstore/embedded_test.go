package redisstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"podium/board"
)

// TestWritesOnTheEmbeddedStore: the submit script runs on miniredis too (the
// app's embedded store, whose Lua is gopher-lua): batches with ranks over
// the script's chunks, idempotent single scores, member ids JSON must
// escape in the recent changes, and the audit streams trimmed in steps.
func TestWritesOnTheEmbeddedStore(t *testing.T) {
	t.Parallel()
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	s := NewStore(rdb, WithAuditKeep(100))
	ctx := context.Background()
	b, err := s.CreateBoard(ctx, board.Board{ID: "mini", Title: "Mini", Periods: []board.Kind{board.Daily, board.AllTime}})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 30 {
		subs := make([]board.Submission, 40)
		for i := range subs {
			subs[i] = board.Submission{Member: fmt.Sprintf("m%d", (i*7+round)%50), Score: float64(i % 5), Op: board.Incr, Name: "Ñame/x"}
		}
		res, err := s.SubmitBatch(ctx, b.ID, subs, board.BatchOptions{By: board.Author{Actor: "test"}})
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := res[0].Change(board.AllTime); !c.After.Ranked {
			t.Fatal(res[0])
		}
		if _, err := s.Submit(ctx, b.ID, board.Submission{Member: "solo/é", Score: 3, IdempotencyKey: fmt.Sprint("k", round)}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	n, _ := rdb.HGet(ctx, AuditRows(b.ID), AuditStream(b.ID)).Int()
	l, _ := rdb.XLen(ctx, AuditStream(b.ID)).Result()
	rc, err := s.Recent(ctx, &b, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(rc) != 3 || rc[0].Member != "solo/é" || l == 0 {
		t.Fatalf("recent %+v, %d audit entries", rc, l)
	}
	if n > 100 || n < 60 {
		t.Fatalf("the board's audit stream counts %d rows; keep 100", n)
	}
}
