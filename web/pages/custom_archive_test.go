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

// TestCustomPeriodsBrowsableFromTheArchive: rounds of a cron schedule and
// of a 72-hour one, played across the end of summer time in Paris, read
// the same on their pages once archived and gone from Redis: standings,
// titles and the links to the rounds either side.
func TestCustomPeriodsBrowsableFromTheArchive(t *testing.T) {
	ctx := context.Background()
	f := webtest.New(t, webtest.Archive(), webtest.Clock(func() time.Time { return webtest.Now }), webtest.StoreOptions(redisstore.WithDefinitionTTL(0)))
	by := board.Author{Actor: "test"}
	var rounds []string // "/b/<id>?period=custom&at=<key>"
	for _, def := range []board.Board{
		{ID: "fridays", Title: "Fridays", Schedule: "0 18 * * FRI"},
		{ID: "heats", Title: "Heats", Schedule: "every 72h from 2026-10-20T00:00", ScheduleName: "Heat"},
	} {
		def.Periods, def.TimeZone, def.Retention = []board.Kind{board.Custom, board.AllTime}, "Europe/Paris", 0
		at := time.Date(2026, 10, 22, 12, 0, 0, 0, time.UTC)
		past := redisstore.NewStore(f.Redis, redisstore.WithClock(func() time.Time { return at }), redisstore.WithDefinitionTTL(0))
		b, err := past.CreateBoard(ctx, def)
		if err != nil {
			t.Fatal(err)
		}
		// A write before the clocks go back (25 October) and one after, a round apart.
		for i, when := range []time.Time{at, time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC)} {
			at = when
			if _, err := past.Submit(ctx, b.ID, board.Submission{Member: "ann", Score: float64(10 * (i + 1))}, by); err != nil {
				t.Fatal(err)
			}
			rounds = append(rounds, "/b/"+b.ID+"?period=custom&at="+b.Current(board.Custom, when).Key)
		}
	}
	before := map[string]string{}
	for _, path := range rounds {
		res, body := f.Get(path)
		if res.StatusCode != 200 || !strings.Contains(body, `data-member="ann"`) {
			t.Fatalf("%s from Redis: %d\n%s", path, res.StatusCode, webtest.Excerpt(body))
		}
		before[path] = body
	}
	a := &archive.Archiver{Store: f.Store, DB: f.App.Archive, Linger: time.Millisecond, Log: webtest.Quiet}
	if n, err := a.Due(ctx); err != nil || n != 4 {
		t.Fatalf("archived %d: %v", n, err)
	}
	for _, path := range rounds {
		id, key, _ := strings.Cut(strings.TrimPrefix(path, "/b/"), "?period=custom&at=")
		b, _ := f.Store.Board(ctx, id)
		p, _ := b.PeriodOf(board.Custom, key)
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if past, err := f.Store.FromPast(ctx, &b, p); err == nil && past {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s is not read from the archive", path)
			}
		}
		if _, body := f.Get(path); standings(t, body) != standings(t, before[path]) || !strings.Contains(body, p.Title()) ||
			!strings.Contains(body, `at=`+p.Prev().Key) {
			t.Fatalf("%s from the archive:\n%s\nRedis showed:\n%s", path, webtest.Excerpt(body), webtest.Excerpt(before[path]))
		}
	}
}
