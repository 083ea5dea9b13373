package audit

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
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
	store := redisstore.NewStore(rdb, redisstore.WithClock(func() time.Time { return at }))
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
	year := b.Current(board.Yearly, at).String()
	// Every period the write touched, the default one first.
	both := func(before, after string) []PeriodChange {
		return []PeriodChange{{month, before, after}, {year, before, after}}
	}
	want := []Entry{
		{Actor: "key:bot (k1)", Action: "score.set", Board: "sales", Member: "ann", Period: month, Before: "(none)", After: "$5.00", Reason: "set $5.00 as Ann", Periods: both("(none)", "$5.00")},
		{Actor: "key:bot (k1)", Action: "score.incr", Board: "sales", Member: "bob", Period: month, Before: "(none)", After: "$1.00", Reason: "incr $1.00", Periods: both("(none)", "$1.00")},
		{Actor: "key:bot (k1)", Action: "score.incr", Board: "sales", Member: "grace", Period: month, Before: "$12.34", After: "$12.35", Reason: "incr $0.01", Periods: both("$12.34", "$12.35")},
		{Actor: "admin:alice", Action: "score.incr", Board: "sales", Member: "grace", Period: month, Before: "(none)", After: "$12.34 (rank 1)", Reason: "incr $12.34: refund", Periods: both("(none)", "$12.34 (rank 1)")},
	}
	for i, w := range want {
		g := all[i]
		g.ID, g.Time = "", time.Time{}
		if !reflect.DeepEqual(g, w) {
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
	// Other changes the board's scripts record with the change.
	if _, err := store.SetName(ctx, b.ID, "grace", "Grace K", alice); err != nil {
		t.Fatal(err)
	}
	if _, err := store.RemoveMember(ctx, b.ID, "bob", nil, alice); err != nil {
		t.Fatal(err)
	}
	yearP := b.Current(board.Yearly, at)
	if _, err := store.ResetPeriod(ctx, b.ID, yearP, alice); err != nil {
		t.Fatal(err)
	}
	rows, _, err := l.List(ctx, Filter{Board: "sales", Actor: "admin:alice"}, "", 4)
	if err != nil || len(rows) != 4 {
		t.Fatalf("rows %+v %v", rows, err)
	}
	got := []string{}
	for _, e := range rows[:3] {
		got = append(got, fmt.Sprintf("%s|%s|%s|%s|%s|%s", e.Action, e.Member, e.Period, e.Before, e.After, e.Reason))
	}
	want2 := []string{
		"period.reset||" + year + "|2 members|0 members|refund",
		"member.remove|bob|" + year + "|$1.00|(removed)|refund",
		"member.remove|bob|" + month + "|$1.00|(removed)|refund",
	}
	if rows[1].Period == month { // the two periods come in the order of the set
		want2[1], want2[2] = want2[2], want2[1]
	}
	if fmt.Sprint(got) != fmt.Sprint(want2) {
		t.Fatalf("got  %q\nwant %q", got, want2)
	}
	if e := rows[3]; e.Action != "member.rename" || e.Before != "grace" || e.After != "Grace K" {
		t.Fatalf("rename %+v", e)
	}
	// The log outlives the board.
	if err := store.DeleteBoard(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := l.Record(ctx, Entry{Actor: "admin:alice", Action: "board.delete", Board: "sales", After: "(deleted)"}); err != nil {
		t.Fatal(err)
	}
	if rows, _, _ := l.List(ctx, Filter{}, "", 20); len(rows) != 9 || rows[0].Action != "board.delete" {
		t.Fatalf("after delete: %+v", rows)
	}
}

// TestEntriesOfEveryPeriod: a score entry shows each period it wrote, and an
// entry written before the log kept every period (eight fields a line) still
// shows its one period.
func TestEntriesOfEveryPeriod(t *testing.T) {
	msg := func(items string) redis.XMessage {
		return redis.XMessage{ID: "1-0", Values: map[string]any{"t": "1000", "actor": "admin:alice", "action": "scores", "board": "golf",
			"period": "week:2026-W47", "reason": "card", "fmt": "integer", "suf": " strokes", "items": items}}
	}
	old := entriesOf(msg("ann\tset\t72\t\t\t72\t1\t"))
	wantOld := []PeriodChange{{"week:2026-W47", "(none)", "72 strokes (rank 1)"}}
	if len(old) != 1 || !reflect.DeepEqual(old[0].Periods, wantOld) || old[0].After != "72 strokes (rank 1)" {
		t.Fatalf("old entry: %+v", old)
	}
	now := entriesOf(msg("ann\tincr\t2\t70\t3\t72\t4\t\t\tmonth:2026-11\t70\t5\t72\t6\tall\t\t0\t72\t9"))
	want := []PeriodChange{{"week:2026-W47", "70 strokes (rank 3)", "72 strokes (rank 4)"},
		{"month:2026-11", "70 strokes (rank 5)", "72 strokes (rank 6)"}, {"all", "(none)", "72 strokes (rank 9)"}}
	if len(now) != 1 || !reflect.DeepEqual(now[0].Periods, want) || now[0].Period != "week:2026-W47" || now[0].Before != "70 strokes (rank 3)" {
		t.Fatalf("entry of three periods: %+v", now)
	}
}
