package pages_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"podium/archive"
	"podium/board"
	"podium/internal/webtest"
	"podium/redisstore"
)

// TestPastWinners: the board page links to its past winners; the page shows
// the top three of each archived period of a kind, with tabs per kind.
func TestPastWinners(t *testing.T) {
	ctx := context.Background()
	f := webtest.New(t, webtest.Archive(), webtest.Clock(time.Now), webtest.StoreOptions(redisstore.WithDefinitionTTL(0))) // sees the freeze below at once
	rdb := f.Redis
	lastWeek := time.Now().UTC().AddDate(0, 0, -14)
	past := redisstore.NewStore(rdb, redisstore.WithClock(func() time.Time { return lastWeek }))
	b, err := past.CreateBoard(ctx, board.Board{ID: "chess", Title: "Chess Club", Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly})
	if err != nil {
		t.Fatal(err)
	}
	for m, v := range map[string]float64{"ann": 30, "bob": 20, "cat": 20, "dan": 10} {
		if _, err := past.Submit(ctx, b.ID, board.Submission{Member: m, Score: v, Op: board.Set, Name: strings.ToUpper(m[:1]) + m[1:]}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	db, store, quiet := f.App.Archive, f.Store, webtest.Quiet
	if n, err := (&archive.Archiver{Store: store, DB: db, Log: quiet}).Due(ctx); err != nil || n != 2 { // the day and the week
		t.Fatalf("archived %d: %v", n, err)
	}
	if _, page := f.Get("/b/chess"); !strings.Contains(page, `href="/b/chess/winners"`) {
		t.Fatal("the board page does not link its past winners")
	}
	res, page := f.Get("/b/chess/winners")
	week := b.Current(board.Weekly, lastWeek)
	if res.StatusCode != 200 || !strings.Contains(page, week.Title()) || strings.Count(page, `data-testid="top-row"`) != 3 ||
		!strings.Contains(page, ">Ann<") || !strings.Contains(page, ">Cat<") || strings.Contains(page, ">Dan<") {
		t.Fatalf("winners page %d:\n%s", res.StatusCode, page)
	}
	if res, page := f.Get("/b/chess/winners?period=day"); res.StatusCode != 200 || !strings.Contains(page, b.Current(board.Daily, lastWeek).Title()) || !strings.Contains(page, ">Weeks<") {
		t.Fatalf("daily winners %d", res.StatusCode)
	}
	if res, _ := f.Get("/b/chess/winners?period=month"); res.StatusCode != 404 {
		t.Fatalf("a kind the board lacks: %d", res.StatusCode)
	}
	if res, _ := f.Get("/b/chess/winners?page=9"); res.StatusCode != 404 {
		t.Fatalf("a page past the end: %d", res.StatusCode)
	}
	// Frozen before those periods ended: their archived results are the
	// freeze's secret until the reveal.
	if _, err := past.Freeze(ctx, b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if res, page := f.Get("/b/chess/winners"); res.StatusCode != 200 || strings.Contains(page, week.Title()) || strings.Contains(page, ">Ann<") {
		t.Fatalf("winners of a frozen board show a period closed after the freeze: %d", res.StatusCode)
	}
}

// TestMemberHistory: a member page charts the member's rank in archived
// periods, with the numbers in a table; a member seen only in the past has
// a page too.
func TestMemberHistory(t *testing.T) {
	ctx := context.Background()
	f := webtest.New(t, webtest.Archive(), webtest.Clock(time.Now))
	rdb, store, db, quiet := f.Redis, f.Store, f.App.Archive, webtest.Quiet
	var b board.Board
	var err error
	for i, ago := range []int{21, 14, 7} { // three closed weeks
		at := time.Now().UTC().AddDate(0, 0, -ago)
		s := redisstore.NewStore(rdb, redisstore.WithClock(func() time.Time { return at }))
		if i == 0 {
			if b, err = s.CreateBoard(ctx, board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}); err != nil {
				t.Fatal(err)
			}
		}
		for m, v := range map[string]float64{"ann": float64(10 * (i + 1)), "bob": 15, "old": 5} {
			if m == "old" && i > 0 {
				continue
			}
			if _, err := s.Submit(ctx, b.ID, board.Submission{Member: m, Score: v, Op: board.Set}, board.Author{Actor: "test"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := (&archive.Archiver{Store: store, DB: db, Log: quiet}).Due(ctx); err != nil {
		t.Fatal(err)
	}
	// "old" scored only in the first week; all time still has it, so drop it there.
	if _, err := store.RemoveMember(ctx, b.ID, "old", nil, board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	res, page := f.Get("/b/chess/m/ann")
	if res.StatusCode != 200 || !strings.Contains(page, `data-testid="history"`) || strings.Count(page, "<circle") != 3 ||
		!strings.Contains(page, "<polyline") || !strings.Contains(page, "<title>") || strings.Count(page, `<td class="num"><strong>`) < 3 {
		t.Fatalf("history of ann %d:\n%s", res.StatusCode, page)
	}
	// ann: 2nd, 2nd, 1st (10 < 15, 20 > 15, 30 > 15)
	first, last := b.Current(board.Weekly, time.Now().UTC().AddDate(0, 0, -21)), b.Current(board.Weekly, time.Now().UTC().AddDate(0, 0, -7))
	if strings.Index(page, first.Title()) > strings.Index(page, last.Title()) {
		t.Fatal("the oldest week does not come first")
	}
	if res, page := f.Get("/b/chess/m/old"); res.StatusCode != 200 || strings.Count(page, "<circle") != 1 {
		t.Fatalf("a member seen only in the past: %d", res.StatusCode)
	}
	if res, _ := f.Get("/b/chess/m/nobody"); res.StatusCode != 404 {
		t.Fatalf("nobody: %d", res.StatusCode)
	}
}
