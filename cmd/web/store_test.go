package main

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
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
