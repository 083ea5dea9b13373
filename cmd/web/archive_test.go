package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/redistest"
)

// TestArchiveCommands: an operator archives last week now, sees it in the
// status, and cannot archive the week in progress.
func TestArchiveCommands(t *testing.T) {
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	rdb := srv.Client(t)
	lastWeek := time.Now().UTC().AddDate(0, 0, -14) // long closed, whatever the day today
	past := board.NewStore(rdb, board.WithClock(func() time.Time { return lastWeek }))
	b, err := past.CreateBoard(ctx, board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}, Retention: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"ann", "bob", "cat"} {
		if _, err := past.Submit(ctx, b.ID, board.Submission{Member: m, Score: 10}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	vars := env(map[string]string{"REDIS_URL": "redis://" + srv.Addr, "ARCHIVE_PATH": filepath.Join(t.TempDir(), "a.db"), "ARCHIVE_GRACE": "1m"})
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
