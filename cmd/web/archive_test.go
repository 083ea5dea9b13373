package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"podium/archive"
	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
)

// TestArchiveCommands: an operator archives last week now, sees it in the
// status, and cannot archive the week in progress.
func TestArchiveCommands(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	rdb := srv.Client(t)
	lastWeek := time.Now().UTC().AddDate(0, 0, -14) // long closed, whatever the day today
	past := redisstore.NewStore(rdb, redisstore.WithClock(func() time.Time { return lastWeek }))
	b, err := past.CreateBoard(ctx, board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}, Retention: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"ann", "bob", "cat"} {
		if _, err := past.Submit(ctx, b.ID, board.Submission{Member: m, Score: 10}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	vars := env(t, map[string]string{"REDIS_URL": "redis://" + srv.Addr, "ARCHIVE_PATH": filepath.Join(t.TempDir(), "a.db"), "ARCHIVE_GRACE": "1m"})
	cmd := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(ctx, append([]string{"archive"}, args...), vars, &out, &out)
		return out.String(), err
	}
	week := b.Current(board.Weekly, lastWeek)
	if out, err := cmd("status"); err != nil || !strings.Contains(out, week.String()) || !strings.Contains(out, "pending") {
		t.Fatalf("status before: %v\n%s", err, out)
	}
	if out, err := cmd("run"); err != nil || !strings.Contains(out, "archived "+week.String()+" of chess: 3 members") {
		t.Fatalf("run: %v\n%s", err, out)
	}
	out, err := cmd("status")
	var line []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, week.String()) {
			line = strings.Fields(l)
		}
	}
	// board, period, in Redis, archived, state: the week is past its grace period
	if err != nil || strings.Join(line, " ") != "chess "+week.String()+" 3 3 archived" {
		t.Fatalf("status after: %v\n%s", err, out)
	}
	now := b.Current(board.Weekly, time.Now())
	if _, err := cmd("run", "--board", "chess", "--period", "week", "--at", now.Key); err == nil || !strings.Contains(err.Error(), "not closed") {
		t.Fatalf("the week in progress: %v", err)
	}
	if _, err := cmd("run", "--period", "week"); err == nil {
		t.Fatal("--period without --at and --board was accepted")
	}
	if out, err := cmd("run"); err != nil || !strings.Contains(out, "nothing to archive") {
		t.Fatalf("run again: %v\n%s", err, out)
	}
	if _, err := cmd("run", "--board", "chess", "--period", "all", "--at", "x"); err == nil || !strings.Contains(err.Error(), "never closes") {
		t.Fatalf("all time: %v", err)
	}
	// Retention 0: the archived week leaves Redis; an operator's copy of it
	// is refused from then on, since Redis holds less than the archive.
	b.Retention = 0
	if _, err := past.UpdateBoard(ctx, b); err != nil {
		t.Fatal(err)
	}
	if out, err := cmd("run"); err != nil || !strings.Contains(out, "expiring from Redis: 1 closed period of chess (it keeps 0 of each kind)") {
		t.Fatalf("run with retention 0: %v\n%s", err, out)
	}
	if out, err := cmd("status"); err != nil || !strings.Contains(out, "archived, expiring from Redis") {
		t.Fatalf("status after expiry: %v\n%s", err, out)
	}
	if _, err := cmd("run", "--board", "chess", "--period", "week", "--at", week.Key); !errors.Is(err, board.ErrArchived) {
		t.Fatalf("copy of an expired week: %v", err)
	}
}

// TestArchiveRunOutsideWriter: closed weeks that a game server wrote
// straight into Redis (ZINCRBY on a member tie-break board) are listed by
// archive status, copied by archive run (rows as the board showed them),
// and set to expire from Redis: one closed last week and one a year ago.
func TestArchiveRunOutsideWriter(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	rdb := srv.Client(t)
	store := redisstore.NewStore(rdb)
	b, err := store.CreateBoard(ctx, board.Board{ID: "arcade", Title: "Arcade", Periods: []board.Kind{board.Weekly, board.AllTime}, TieBreak: board.ByMember, Retention: 0})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	weeks := []board.Period{b.Current(board.Weekly, now.AddDate(0, 0, -14)), b.Current(board.Weekly, now.AddDate(-1, 0, 0))}
	shown := map[string][]board.Entry{}
	for i, w := range weeks {
		z := redisstore.ZSetKey(b.ID, w)
		for m := range 30 + i {
			if err := rdb.ZIncrBy(ctx, z, float64(m%7), fmt.Sprintf("m%02d", m)).Err(); err != nil {
				t.Fatal(err)
			}
		}
		pg, err := store.Page(ctx, &b, w, 0, 100)
		if err != nil || len(pg.Entries) != 30+i {
			t.Fatalf("%s: %+v %v", w, pg, err)
		}
		shown[w.String()] = pg.Entries
	}
	path := filepath.Join(t.TempDir(), "a.db")
	vars := env(t, map[string]string{"REDIS_URL": "redis://" + srv.Addr, "ARCHIVE_PATH": path, "ARCHIVE_GRACE": "1m"})
	cmd := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(ctx, append([]string{"archive"}, args...), vars, &out, &out)
		return out.String(), err
	}
	out, err := cmd("status")
	for _, w := range weeks {
		if err != nil || !strings.Contains(out, w.String()) {
			t.Fatalf("status lacks %s: %v\n%s", w, err, out)
		}
	}
	out, err = cmd("run")
	if err != nil || !strings.Contains(out, "expiring from Redis: 2 closed periods of arcade") {
		t.Fatalf("run: %v\n%s", err, out)
	}
	for i, w := range weeks {
		if !strings.Contains(out, fmt.Sprintf("archived %s of arcade: %d members", w, 30+i)) {
			t.Fatalf("run did not archive %s:\n%s", w, out)
		}
		if ttl := rdb.PTTL(ctx, redisstore.ZSetKey(b.ID, w)).Val(); ttl <= 0 || ttl > time.Minute {
			t.Fatalf("%s is not set to expire from Redis: TTL %v", w, ttl)
		}
	}
	db, err := archive.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, w := range weeks {
		rows, err := db.Past().Rows(ctx, b.ID, w.String(), 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		want := shown[w.String()]
		if len(rows) != len(want) {
			t.Fatalf("%s: %d rows archived, %d shown", w, len(rows), len(want))
		}
		for i, e := range want {
			if r := rows[i]; r.Member != e.Member || r.Rank != e.Rank || r.Position != e.Position || r.Score != e.Score {
				t.Fatalf("%s row %d: archived %+v, shown %+v", w, i, r, e)
			}
		}
	}
	if out, err := cmd("status"); err != nil || strings.Count(out, "archived, expiring from Redis") != 2 {
		t.Fatalf("status after: %v\n%s", err, out)
	}
}
