package redisstore

import (
	"errors"
	"strings"
	"testing"
	"time"

	"podium/board"
)

// The window mode cannot change while a window is on; turning the windows
// off deletes them, so turned on again they start empty.
func TestWindowDefinition(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime, board.Last7d, board.Last30d}})
	f.write(b, "ann", board.Incr, 10)
	upd := *b
	upd.Window = board.WindowBest
	if _, err := f.store.UpdateBoard(f.ctx, upd); !errors.Is(err, board.ErrImmutable) {
		t.Fatalf("mode change with windows on: %v, want ErrImmutable", err)
	}
	upd.Window, upd.Periods = board.WindowSum, []board.Kind{board.AllTime}
	if _, err := f.store.UpdateBoard(f.ctx, upd); err != nil {
		t.Fatal(err)
	}
	z := ZSetKey(b.ID, board.Period{Kind: board.Last7d})
	if n, err := f.rdb.Exists(f.ctx, z, bucketsKey(z)).Result(); err != nil || n != 0 {
		t.Fatalf("window keys left after turning it off: %d (%v)", n, err)
	}
	upd.Window, upd.Periods = board.WindowBest, []board.Kind{board.AllTime, board.Last7d}
	got, err := f.store.UpdateBoard(f.ctx, upd)
	if err != nil {
		t.Fatal(err)
	}
	if got.Window != board.WindowBest {
		t.Fatalf("window mode %q", got.Window)
	}
	if s := f.standings(&got, board.Last7d); s != "" {
		t.Fatalf("window turned on again holds %q", s)
	}
	bad := board.Board{ID: "x", Title: "x", Window: "max"}
	bad.Normalize()
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "window") {
		t.Fatalf("window max: %v", err)
	}
}

// Window kinds parse, key and title like all time.
func TestWindowKinds(t *testing.T) {
	for _, k := range []board.Kind{board.Last24h, board.Last7d, board.Last30d} {
		p, err := board.ParsePeriod(k, "", time.UTC)
		if err != nil || p.Kind != k || p.String() != string(k) || p.Ended(time.Now()) || p.Prev() != p {
			t.Fatalf("%s: %+v %v", k, p, err)
		}
		id, kind, key, ok := ParseZSetKey(ZSetKey("chess", p))
		if !ok || id != "chess" || kind != k || key != "" {
			t.Fatalf("ParseZSetKey(%s) = %s %s %q %v", ZSetKey("chess", p), id, kind, key, ok)
		}
		if _, _, _, ok := ParseZSetKey(bucketKey(ZSetKey("chess", p), "2026-11-22")); ok {
			t.Fatalf("a bucket key parsed as a period")
		}
	}
	if got := ZSetKey("chess", board.Period{Kind: board.Last24h}); got != "lb:{chess}:r:24h" {
		t.Fatalf("key %s", got)
	}
}

// FCALL podium_submit writes the windows and their buckets as the API does:
// the hour's bucket id computed in Lua matches Go's, the day's comes from
// the schedule in the board's zone.
func TestWindowFunction(t *testing.T) {
	f := realFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.Last24h, board.Last7d, board.Last30d}, TimeZone: "Pacific/Kiritimati", Window: board.WindowSum})
	before := time.Now()
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "incr", "5"); err != nil {
		t.Fatal(err)
	}
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "decr", "2"); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	for _, k := range []board.Kind{board.Last24h, board.Last7d, board.Last30d} {
		if got, want := f.standings(b, k), "ann=3@1"; got != want {
			t.Fatalf("%s: %s, want %s", k, got, want)
		}
		z := ZSetKey(b.ID, board.Period{Kind: k})
		ids, err := f.rdb.SMembers(f.ctx, bucketsKey(z)).Result()
		if err != nil || len(ids) != 1 || (ids[0] != b.BucketAt(k, before) && ids[0] != b.BucketAt(k, after)) {
			t.Fatalf("%s buckets %v (%v), want [%s]", k, ids, err, b.BucketAt(k, after))
		}
		if v, err := f.rdb.ZScore(f.ctx, bucketKey(z, ids[0]), "ann").Result(); err != nil || v != 3 {
			t.Fatalf("%s bucket holds %g (%v)", k, v, err)
		}
		if ttl, err := f.rdb.TTL(f.ctx, bucketKey(z, ids[0])).Result(); err != nil || ttl <= bucketTTL(k)-time.Minute || ttl > bucketTTL(k) {
			t.Fatalf("%s bucket TTL %v (%v)", k, ttl, err)
		}
	}
	// The Lua civil date agrees with Go's across years and leap days.
	for _, at := range []string{"1970-01-01T00:00:00Z", "2000-02-29T23:59:59Z", "2024-12-31T23:00:00Z", "2100-03-01T05:00:00Z", "2026-11-22T13:45:00Z"} {
		tm, _ := time.Parse(time.RFC3339, at)
		got, err := f.rdb.Eval(f.ctx, utcHourLua+"\nreturn utc_hour(tonumber(ARGV[1]))", nil, tm.UnixMicro()).Text()
		if err != nil || got != b.BucketAt(board.Last24h, tm) {
			t.Fatalf("utc_hour(%s) = %q (%v), want %q", at, got, err, b.BucketAt(board.Last24h, tm))
		}
	}
}

// The Roller rolls a window once per bucket boundary, and forgets boards
// that are gone.
func TestRollerTick(t *testing.T) {
	f := newFixture(t)
	day0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	f.at(day0)
	b := f.board(board.Board{Periods: []board.Kind{board.Last7d, board.Last24h}})
	f.write(b, "ann", board.Incr, 2)
	r := &Roller{Store: f.store}
	if err := r.Tick(f.ctx); err != nil {
		t.Fatal(err)
	}
	key := b.ID + "\x00" + string(board.Last7d)
	if r.done[key] != "2026-10-27" {
		t.Fatalf("rolled through %q", r.done[key])
	}
	f.at(day0.Add(7 * 24 * time.Hour))
	if err := r.Tick(f.ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.standings(b, board.Last7d); got != "" {
		t.Fatalf("last7d after the tick: %q", got)
	}
	if err := f.store.DeleteBoard(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.Tick(f.ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.done[key]; ok {
		t.Fatal("a deleted board stays in the roller's memory")
	}
}
