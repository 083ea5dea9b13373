package archive

import (
	"context"
	"errors"
	"testing"
	"time"

	"podium/redisstore"
)

// snapKeys lists the snapshot keys of the fixture's board in Redis.
func snapKeys(t *testing.T, f *fixture) []string {
	t.Helper()
	keys, err := f.store.Client().Keys(f.ctx, redisstore.HashTag(f.b.ID)+":snap:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestDeadPassReclaimed: a pass that dies mid-copy (the server, the CLI or
// Redis killed) keeps its period from other passes only until its lock's
// short TTL runs out, not for minutes; the next pass then archives the
// period and drops the dead pass's snapshot, which until then keeps a TTL.
func TestDeadPassReclaimed(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		lockKey := redisstore.ArchiveLock(f.b.ID, w)

		// A pass takes its lock and its snapshot as copyPass does, then dies:
		// its renewer stops with it; nothing is released or closed.
		alive, die := context.WithCancel(f.ctx)
		dl, err := f.a.lock(alive, &f.b, w)
		if err != nil || dl == nil {
			t.Fatal("lock", err)
		}
		if _, err := f.store.ArchiveSnapshot(dl.ctx, &f.b, w, snapshotTTL, dl.token); err != nil {
			t.Fatal(err)
		}
		die()
		<-dl.ctx.Done()

		// What the crash costs: the lock outlives the pass by DefaultLockTTL
		// at most, and the snapshot keeps a TTL.
		if ttl := f.store.Client().PTTL(f.ctx, lockKey).Val(); ttl <= 0 || ttl > DefaultLockTTL || DefaultLockTTL > 30*time.Second {
			t.Fatalf("the dead pass's lock lives %v more (default %v): it holds the period that long", ttl, DefaultLockTTL)
		}
		snaps := snapKeys(t, f)
		if len(snaps) == 0 {
			t.Fatal("the dead pass left no snapshot")
		}
		for _, k := range append(snaps, redisstore.ArchiveSnaps(f.b.ID)) {
			if ttl := f.store.Client().PTTL(f.ctx, k).Val(); ttl <= 0 || ttl > snapshotTTL {
				t.Fatalf("%s: TTL %v", k, ttl)
			}
		}

		// Time passes: Redis's clock cannot be moved, so the lock is brought
		// to the end of its life (what DefaultLockTTL without a renewal
		// does), and Redis expires it.
		if err := f.store.Client().PExpire(f.ctx, lockKey, 100*time.Millisecond).Err(); err != nil {
			t.Fatal(err)
		}
		// Once its lock has run out, the next pass archives the period and
		// drops the dead pass's snapshot.
		deadline := time.Now().Add(30 * time.Second)
		for {
			n, err := f.a.Due(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the period is still refused 30 s after its dead pass's lock ran out (lock TTL now %v)",
					f.store.Client().PTTL(f.ctx, lockKey).Val())
			}
			time.Sleep(20 * time.Millisecond)
		}
		f.same(t, w)
		if left := snapKeys(t, f); len(left) != 0 {
			t.Fatalf("the dead pass's snapshot is still in Redis: %v", left)
		}
		if n := f.store.Client().Exists(f.ctx, redisstore.ArchiveSnaps(f.b.ID), lockKey).Val(); n != 0 {
			t.Fatalf("%d of the snapshot record and the lock are left", n)
		}
	})
}

// TestLostLockStopsThePass: a pass whose lock is taken over (it was not
// renewed in time) stops, records nothing, and its release leaves the new
// owner's lock alone; a snapshot is refused to a pass that is no longer
// the owner.
func TestLostLockStopsThePass(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		w := f.week()
		f.clock.Set(w.End.Add(2 * time.Hour))
		a := &Archiver{Store: f.store, DB: db, Grace: time.Hour, LockTTL: 400 * time.Millisecond, Log: quiet}
		l, err := a.lock(f.ctx, &f.b, w)
		if err != nil || l == nil {
			t.Fatal("lock", err)
		}
		lockKey := redisstore.ArchiveLock(f.b.ID, w)
		if err := f.store.Client().Set(f.ctx, lockKey, "another pass", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-l.ctx.Done():
		case <-time.After(30 * time.Second):
			t.Fatal("the pass goes on after its lock was taken over")
		}
		if !errors.Is(context.Cause(l.ctx), errLockLost) {
			t.Fatalf("cause: %v", context.Cause(l.ctx))
		}
		if _, err := f.store.ArchiveSnapshot(f.ctx, &f.b, w, snapshotTTL, l.token); !errors.Is(err, redisstore.ErrNotOwner) {
			t.Fatalf("a snapshot for a pass that lost its lock: %v", err)
		}
		l.release()
		if v := f.store.Client().Get(f.ctx, lockKey).Val(); v != "another pass" {
			t.Fatalf("the lock after the old owner's release: %q", v)
		}
		if left := snapKeys(t, f); len(left) != 0 {
			t.Fatalf("snapshots: %v", left)
		}
	})
}
