package audit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"podium/board"
)

// TestScoreEntries: the board's own write records scores (one entry per call,
// one row per score), and the log shows them in the board's format, in the
// board's default period, through every view and across pages, after the
// board is deleted too.
func TestScoreEntries(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	rdb.FlushDB(ctx)
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	store := board.NewStore(rdb, board.WithClock(func() time.Time { return at }))
	b, err := store.CreateBoard(ctx, board.Board{ID: "sales", Title: "Sales", Format: board.Format{Type: board.Decimal, Decimals: 2, Prefix: "$"},
		Periods: []board.Kind{board.Monthly, board.Yearly}, DefaultPeriod: board.Monthly})
	if err != nil {
		t.Fatal(err)
	}
	alice := board.Author{Actor: "admin:alice", Reason: "refund"}
	if _, err := store.Submit(ctx, b.ID, board.Submission{Member: "grace", Score: 1234, Op: board.Incr}, alice); err != nil {
		t.Fatal(err)
	}
	bot := board.Author{Actor: "key:bot (k1)"}
	batch := []board.Submission{{Member: "ann", Score: 500, Op: board.Set, Name: "Ann"}, {Member: "bob", Score: 100}, {Member: "grace", Score: 1}}
	if _, err := store.SubmitBatch(ctx, b.ID, batch, board.BatchOptions{By: bot, NoRanks: true}); err != nil {
		t.Fatal(err)
	}
	l := New(rdb)
	all, next, err := l.List(ctx, Filter{}, "", 10)
	if err != nil || next != "" || len(all) != 4 {
		t.Fatalf("list: %d rows, next %q, %v", len(all), next, err)
	}
	month := b.Current(board.Monthly, at).String()
	want := []Entry{
		{Actor: "key:bot (k1)", Action: "score.set", Board: "sales", Member: "ann", Period: month, Before: "(none)", After: "$5.00", Reason: "set $5.00 as Ann"},
		{Actor: "key:bot (k1)", Action: "score.incr", Board: "sales", Member: "bob", Period: month, Before: "(none)", After: "$1.00", Reason: "incr $1.00"},
		{Actor: "key:bot (k1)", Action: "score.incr", Board: "sales", Member: "grace", Period: month, Before: "$12.34", After: "$12.35", Reason: "incr $0.01"},
		{Actor: "admin:alice", Action: "score.incr", Board: "sales", Member: "grace", Period: month, Before: "(none)", After: "$12.34 (rank 1)", Reason: "incr $12.34: refund"},
	}
	for i, w := range want {
		g := all[i]
		g.ID, g.Time = "", time.Time{}
		if g != w {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	// Pages of one row walk through the batch's entry without repeats.
	var walked []string
	cursor := ""
	for range 10 {
		page, next, err := l.List(ctx, Filter{Board: "sales"}, cursor, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			walked = append(walked, e.Member)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if got := fmt.Sprint(walked); got != "[ann bob grace grace]" {
		t.Fatalf("paged rows %s", got)
	}
	if rows, _, _ := l.List(ctx, Filter{Actor: "admin:alice"}, "", 10); len(rows) != 1 || rows[0].Member != "grace" {
		t.Fatalf("by actor: %+v", rows)
	}
	if rows, _, _ := l.List(ctx, Filter{Actor: "key:bot (k1)", Board: "sales"}, "", 10); len(rows) != 3 {
		t.Fatalf("by actor and board: %+v", rows)
	}
	if actors, _ := l.Actors(ctx); fmt.Sprint(actors) != "[admin:alice key:bot (k1)]" {
		t.Fatalf("actors %v", actors)
	}
	// The log outlives the board.
	if err := store.DeleteBoard(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := l.Record(ctx, Entry{Actor: "admin:alice", Action: "board.delete", Board: "sales", After: "(deleted)"}); err != nil {
		t.Fatal(err)
	}
	if rows, _, _ := l.List(ctx, Filter{}, "", 10); len(rows) != 5 || rows[0].Action != "board.delete" {
		t.Fatalf("after delete: %+v", rows)
	}
}
