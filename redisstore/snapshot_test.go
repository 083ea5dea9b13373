package redisstore

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"podium/board"
)

// TestDropStaleSnapshots: an archive pass's snapshot is recorded with its
// lock's token and keeps a TTL; once its pass no longer holds the lock (it
// died, or lost it), any pass drops it, and never one whose pass does.
func TestDropStaleSnapshots(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime}, RankStyle: board.Dense})
	for i := range 20 {
		f.submit(b, fmt.Sprintf("m%02d", i), float64(i%4), board.Set)
	}
	w := b.Current(board.Weekly, f.clock.Now())
	all := b.Current(board.AllTime, f.clock.Now())
	take := func(p board.Period, token string) *Snapshot {
		t.Helper()
		if err := f.rdb.Set(f.ctx, ArchiveLock(b.ID, p), token, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		sn, err := f.store.ArchiveSnapshot(f.ctx, b, p, time.Hour, token)
		if err != nil || sn.Total != 20 {
			t.Fatalf("snapshot: %+v %v", sn, err)
		}
		return sn
	}
	dead, live := take(w, "dead"), take(all, "live")
	for _, k := range append(snapshotKeys(dead.z)[:3], ArchiveSnaps(b.ID)) {
		if ttl := f.rdb.PTTL(f.ctx, k).Val(); ttl <= 0 || ttl > time.Hour {
			t.Fatalf("%s: TTL %v", k, ttl)
		}
	}
	if n, err := f.store.DropStaleSnapshots(f.ctx, b); err != nil || n != 0 {
		t.Fatalf("dropped %d while their passes hold their locks: %v", n, err)
	}
	f.rdb.Del(f.ctx, ArchiveLock(b.ID, w)) // the dead pass's lock runs out
	if n, err := f.store.DropStaleSnapshots(f.ctx, b); err != nil || n != 1 {
		t.Fatalf("dropped %d: %v", n, err)
	}
	if n := f.rdb.Exists(f.ctx, snapshotKeys(dead.z)...).Val(); n != 0 {
		t.Fatalf("%d keys of the dead pass's snapshot are left", n)
	}
	if pg, err := live.Page(f.ctx, 0, 50); err != nil || len(pg.Entries) != 20 {
		t.Fatalf("the live pass's snapshot: %d rows, %v", len(pg.Entries), err)
	}
	if err := live.Close(f.ctx); err != nil {
		t.Fatal(err)
	}
	if n := f.rdb.Exists(f.ctx, append(snapshotKeys(live.z), ArchiveSnaps(b.ID))...).Val(); n != 0 {
		t.Fatalf("%d keys left after Close", n)
	}
	// A pass that no longer holds its lock gets no snapshot.
	if _, err := f.store.ArchiveSnapshot(f.ctx, b, w, time.Hour, "dead"); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("a snapshot without the lock: %v", err)
	}
}
