package redisstore

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/redistest"
)

// TestNoteOutsidePeriods: the keys of periods that a game server wrote
// straight into Redis are found by the walk of the keyspace, in whole or a
// step at a time, and noted in the board's periods set; keys beside them
// that only look like periods are not; a period made again after it
// expired from Redis is set to expire again, not noted.
func TestNoteOutsidePeriods(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{TieBreak: board.ByMember, Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime}})
	tag := tagOf(b.ID)
	week := func(key string) board.Period {
		p, err := board.ParsePeriod(board.Weekly, key, b.Location())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	closed, current, gone := week("2026-W40"), b.Current(board.Weekly, f.clock.Now()), week("2026-W39")
	for _, p := range []board.Period{closed, current, gone} {
		f.rdb.ZIncrBy(f.ctx, ZSetKey(b.ID, p), 5, "ann")
	}
	f.rdb.HSet(f.ctx, ArchiveState(b.ID), gone.String(), "2 1 x2")
	lookalikes := []string{tag + ":w:2026-W41:t", tag + ":w:2026-W41:d", tag + ":frz:w:2026-W42", tag + ":snap:0123",
		tag + ":w:2026-W99", tag + ":d:2026-11-1", tag + ":r:7d:b:2026-11-01", tag + ":r:7d"}
	for _, k := range lookalikes {
		f.rdb.ZAdd(f.ctx, k, redis.Z{Score: 1, Member: "x"})
	}
	f.rdb.Set(f.ctx, tag+":w:2026-W43", "not a zset", 0)
	f.rdb.HSet(f.ctx, tag+":w:2026-W44:e", "ann", "x")
	t.Cleanup(func() { f.rdb.Del(context.Background(), append(lookalikes, tag+":w:2026-W43", tag+":w:2026-W44:e")...) })

	// The whole keyspace at once finds the zsets whose names look like
	// periods' (NotePeriods then leaves out W99 and 2026-11-1)...
	all, err := f.store.ScanPeriodKeys(f.ctx, &KeyScan{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ZSetKey(b.ID, closed), ZSetKey(b.ID, gone), ZSetKey(b.ID, current), tag + ":w:2026-W99", tag + ":d:2026-11-1"}
	slices.Sort(want)
	if got := slices.Sorted(slices.Values(all[b.ID])); !slices.Equal(got, want) {
		t.Fatalf("found %v, want %v", got, want)
	}
	// ...and so do steps of one SCAN call each, each going on from the last.
	var sc KeyScan
	var found []string
	for step := 0; len(found) < len(want); step++ {
		if step > 10_000 {
			t.Fatalf("the walk found %v", found)
		}
		got, err := f.store.ScanPeriodKeys(f.ctx, &sc, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range got[b.ID] {
			if !slices.Contains(found, k) {
				found = append(found, k)
			}
		}
	}

	noted, again, err := f.store.NotePeriods(f.ctx, b, append(found, lookalikes...), time.Minute)
	if err != nil || noted != 2 || again != 1 {
		t.Fatalf("noted %d, set to expire again %d: %v", noted, again, err)
	}
	ps, err := f.store.StoredPeriods(f.ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, p := range ps {
		labels = append(labels, p.String())
	}
	slices.Sort(labels)
	if want := []string{closed.String(), current.String()}; !slices.Equal(labels, want) {
		t.Fatalf("periods set: %v, want %v", labels, want)
	}
	if ttl := f.rdb.PTTL(f.ctx, ZSetKey(b.ID, gone)).Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("the expired week written again: TTL %v", ttl)
	}
	for _, k := range lookalikes {
		if ttl := f.rdb.PTTL(f.ctx, k).Val(); ttl != -1 {
			t.Fatalf("%s: TTL %v", k, ttl)
		}
	}
	// Noting again changes nothing.
	if noted, again, err := f.store.NotePeriods(f.ctx, b, found, time.Minute); err != nil || noted != 0 || again != 0 {
		t.Fatalf("again: %d %d %v", noted, again, err)
	}
}

// TestClosedBefore: the periods looked for by name are the last closed
// ones of each calendar kind the board enables, newest first.
func TestClosedBefore(t *testing.T) {
	b := &board.Board{Periods: []board.Kind{board.Weekly, board.AllTime, board.Daily, board.Last7d}}
	now := time.Date(2027, 1, 5, 10, 0, 0, 0, time.UTC) // Tuesday of 2027-W01
	var got []string
	for _, p := range b.ClosedBefore(now, 3) {
		got = append(got, p.String())
	}
	want := []string{"week:2026-W53", "week:2026-W52", "week:2026-W51", "day:2027-01-04", "day:2027-01-03", "day:2027-01-02"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestScanPeriodsOnCluster: on a Redis Cluster the walk covers every
// primary, so periods written straight into Redis are found whichever node
// serves their board.
func TestScanPeriodsOnCluster(t *testing.T) {
	t.Parallel()
	cluster, err := redistest.StartCluster(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx := context.Background()
	cc := cluster.Client(t)
	s := NewStore(cc)
	primaries, err := cluster.Primaries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byPrimary := map[string]string{}
	for i := 0; len(byPrimary) < len(primaries); i++ {
		id := fmt.Sprintf("shard%d", i)
		p, err := cluster.PrimaryOf(ctx, tagOf(id))
		if err != nil {
			t.Fatal(err)
		}
		if byPrimary[p] == "" {
			byPrimary[p] = id
		}
	}
	w, err := board.ParsePeriod(board.Weekly, "2026-W40", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range byPrimary {
		if err := cc.ZIncrBy(ctx, ZSetKey(id, w), 3, "ann").Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, budget := range []int{0, 1} {
		var sc KeyScan
		found := map[string]bool{}
		for step := 0; len(found) < len(byPrimary); step++ {
			if step > 100 {
				t.Fatalf("budget %d: found %v of %v", budget, found, byPrimary)
			}
			got, err := s.ScanPeriodKeys(ctx, &sc, budget)
			if err != nil {
				t.Fatal(err)
			}
			for id, keys := range got {
				if slices.Equal(keys, []string{ZSetKey(id, w)}) {
					found[id] = true
				}
			}
		}
	}
}
