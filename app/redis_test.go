package app

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"podium/archive"
	"podium/board"
	"podium/redisstore"
)

// TestEmbeddedKeysExpire: the embedded store runs time-to-live down as Redis
// does, so sessions, rate windows and periods set to expire do go.
func TestEmbeddedKeysExpire(t *testing.T) {
	rdb, _, closeStore, err := openEmbedded(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	ctx := context.Background()
	if err := rdb.Set(ctx, "short", "x", 500*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Set(ctx, "long", "x", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); rdb.Exists(ctx, "short").Val() == 1; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a key set to live 500 ms is still there after 5 s")
		}
	}
	if rdb.Exists(ctx, "long").Val() != 1 {
		t.Fatal("a key set to live an hour is gone")
	}
}

// TestEmbeddedArchives: the archiver's scripts run on the embedded store
// (its Lua differs from Redis' in small ways): a closed week is copied,
// then expires, then reads from the archive.
func TestEmbeddedArchives(t *testing.T) {
	rdb, opts, closeStore, err := openEmbedded(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	ctx := context.Background()
	db, err := archive.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lastWeek := time.Now().UTC().AddDate(0, 0, -14)
	past := redisstore.NewStore(rdb, append(opts, redisstore.WithClock(func() time.Time { return lastWeek }))...)
	b, err := past.CreateBoard(ctx, board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []string{"ann", "bob", "cat"} {
		if _, err := past.Submit(ctx, b.ID, board.Submission{Member: m, Score: float64(10 * i)}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	store := redisstore.NewStore(rdb, append(opts, redisstore.WithPast(db.Past()))...)
	a := &archive.Archiver{Store: store, DB: db, Linger: time.Millisecond, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if n, err := a.Due(ctx); err != nil || n != 1 {
		t.Fatalf("archived %d: %v", n, err)
	}
	week := b.Current(board.Weekly, lastWeek)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if n, _ := store.Count(ctx, &b, week); n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the week did not expire from the embedded store")
		}
	}
	pg, err := store.Page(ctx, &b, week, 0, 10)
	if err != nil || pg.Total != 3 || pg.Entries[0].Member != "cat" {
		t.Fatalf("the expired week from the archive: %+v %v", pg, err)
	}
}
