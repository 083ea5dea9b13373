package e2e

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"podium/archive"
	"podium/board"
	"podium/redisstore"
)

// TestPastWeekFromArchive: two closed weeks are archived and expire from
// Redis; a person browses the last one (tied ranks, names), downloads it as
// CSV, and sees a member's ranks week by week on a chart, all read from the
// SQLite archive.
func TestPastWeekFromArchive(t *testing.T) {
	t.Parallel()
	db, err := archive.Open(context.Background(), filepath.Join(t.TempDir(), "archive.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	a := launch(t, db)
	b := a.board(board.Board{ID: "chess", Title: "Chess Club", Periods: []board.Kind{board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly},
		"ann", 1)
	for _, w := range []struct {
		when   time.Time
		scores []any
	}{
		{time.Date(2026, 12, 22, 10, 0, 0, 0, time.UTC), []any{"ann", 12, "bob", 20, "cy", 5}},             // 2026-W52: ann 2nd
		{time.Date(2026, 12, 31, 10, 0, 0, 0, time.UTC), []any{"ann", 30, "bob", 30, "cy", 20, "dee", 10}}, // 2026-W53: bob and ann tied 1st (same instant: by member)
	} {
		past := redisstore.NewStore(a.redis(), redisstore.WithClock(func() time.Time { return w.when }))
		a.scores(b.ID, past, w.scores...)
	}
	if _, err := a.store.SetName(context.Background(), b.ID, "ann", "Ann Archer", board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	// The archiver copies both weeks; retention 0 lets them expire at once.
	b.Retention = 0
	if *b, err = a.store.UpdateBoard(context.Background(), *b); err != nil {
		t.Fatal(err)
	}
	arch := &archive.Archiver{Store: a.store, DB: db, Linger: time.Millisecond, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if n, err := arch.Due(context.Background()); err != nil || n != 2 {
		t.Fatalf("archived %d periods: %v", n, err)
	}
	w53, _ := board.ParsePeriod(board.Weekly, "2026-W53", time.UTC)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if n, _ := a.store.Count(context.Background(), b, w53); n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("2026-W53 did not expire from Redis")
		}
	}

	page := newPage(t)
	open(t, page, a.URL+"/b/chess?period=week&at=2026-W53", 200)
	must(t, expect.Locator(page.GetByTestId("period-title")).ToHaveText("Week 53, 28 Dec 2026 – 3 Jan 2027"))
	must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"bob", "Ann Archer", "cy", "dee"}))
	must(t, expect.Locator(page.GetByTestId("rank")).ToHaveText([]string{"1", "1", "3", "4"}))

	// The CSV download holds the week as it closed.
	dl, err := page.ExpectDownload(func() error { return page.GetByTestId("export-csv").Click() })
	if err != nil {
		t.Fatal(err)
	}
	path, err := dl.Path()
	if err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "rank,member,name,score,raw_score\n1,bob,bob,30,30\n1,ann,Ann Archer,30,30\n3,cy,cy,20,20\n4,dee,dee,10,10\n"
	if got := strings.ReplaceAll(string(csv), "\r\n", "\n"); got != want {
		t.Fatalf("CSV download:\n%s\nwant:\n%s", got, want)
	}
	if name := dl.SuggestedFilename(); !strings.HasSuffix(name, ".csv") {
		t.Fatalf("download named %q", name)
	}

	// The member's history: both weeks, on the chart and in its table.
	open(t, page, a.URL+"/b/chess/m/ann", 200)
	history := page.GetByTestId("history")
	must(t, expect.Locator(history.Locator("svg[role=img] circle")).ToHaveCount(2))
	rows := history.GetByTestId("history-table").Locator("tbody tr")
	must(t, expect.Locator(rows).ToHaveCount(2))
	must(t, expect.Locator(rows.Nth(0)).ToContainText("2nd"))
	must(t, expect.Locator(rows.Nth(1)).ToContainText("1st"))
	must(t, expect.Locator(history.Locator("svg circle title").First()).ToContainText("Week 52"))
}
