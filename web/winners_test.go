package web

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"podium/archive"
	"podium/board"
)

// TestPastWinners: the board page links to its past winners; the page shows
// the top three of each archived period of a kind, with tabs per kind.
func TestPastWinners(t *testing.T) {
	ctx := context.Background()
	rdb := srv.Client(t)
	rdb.FlushDB(ctx)
	lastWeek := time.Now().UTC().AddDate(0, 0, -14)
	past := board.NewStore(rdb, board.WithClock(func() time.Time { return lastWeek }))
	b, err := past.CreateBoard(ctx, board.Board{ID: "chess", Title: "Chess Club", Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly})
	if err != nil {
		t.Fatal(err)
	}
	for m, v := range map[string]float64{"ann": 30, "bob": 20, "cat": 20, "dan": 10} {
		if _, err := past.Submit(ctx, b.ID, board.Submission{Member: m, Score: v, Op: board.Set, Name: strings.ToUpper(m[:1]) + m[1:]}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	db, err := archive.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := board.NewStore(rdb)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if n, err := (&archive.Archiver{Store: store, DB: db, Log: quiet}).Due(ctx); err != nil || n != 2 { // the day and the week
		t.Fatalf("archived %d: %v", n, err)
	}
	h := httptest.NewServer(New(Options{Store: store, History: db, Logger: quiet}))
	defer h.Close()
	f := &fixture{t: t, http: h}
	if _, page := f.get("/b/chess"); !strings.Contains(page, `href="/b/chess/winners"`) {
		t.Fatal("the board page does not link its past winners")
	}
	res, page := f.get("/b/chess/winners")
	week := b.Current(board.Weekly, lastWeek)
	if res.StatusCode != 200 || !strings.Contains(page, week.Title()) || strings.Count(page, `data-testid="top-row"`) != 3 ||
		!strings.Contains(page, ">Ann<") || !strings.Contains(page, ">Cat<") || strings.Contains(page, ">Dan<") {
		t.Fatalf("winners page %d:\n%s", res.StatusCode, page)
	}
	if res, page := f.get("/b/chess/winners?period=day"); res.StatusCode != 200 || !strings.Contains(page, b.Current(board.Daily, lastWeek).Title()) || !strings.Contains(page, ">Weeks<") {
		t.Fatalf("daily winners %d", res.StatusCode)
	}
	if res, _ := f.get("/b/chess/winners?period=month"); res.StatusCode != 404 {
		t.Fatalf("a kind the board lacks: %d", res.StatusCode)
	}
	if res, _ := f.get("/b/chess/winners?page=9"); res.StatusCode != 404 {
		t.Fatalf("a page past the end: %d", res.StatusCode)
	}
}
