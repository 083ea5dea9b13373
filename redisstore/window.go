package redisstore

// Rolling windows: "the last 24 hours", "the last 7 days", "the last 30 days".
//
// A window is a sorted set like any period's (lb:{b}:r:7d, with the same
// entries hash, dense index and group counts), written by the submit script
// in the same step as the calendar periods, so reads, ranks, ties, search,
// around-me and the live hub treat it like all time: a 50-row page costs
// what a period's does. Beside it, the window keeps buckets (an hour each
// for last24h, in UTC; a day each for last7d and last30d, in the board's
// zone) holding what each write put into the window:
//
//   - WindowSum (the default): each write changes the window as it changes a
//     period (incr adds, decr subtracts, set replaces, best keeps the better)
//     and its bucket adds up the changes made; the window's score is the sum
//     of its buckets' changes. A set made 8 days ago therefore no longer
//     counts in last7d: only the changes made inside the window do.
//   - WindowBest: each write offers a value (the value itself for best and
//     set; for incr and decr, the score it reaches in all time, or in the
//     board's longest calendar period) and a bucket keeps the best offered in
//     it; the window's score is the best offer inside the window.
//     A set cannot lower a member's window score below a better offer made
//     earlier in the window.
//
// When a bucket leaves the window, the roller (Roller.Tick, run by every
// replica every few seconds) takes it out: in chunks, each one atomic,
// it subtracts the bucket's changes (sum) or recomputes the best of the
// buckets left (best) for the bucket's members, and removes the members no
// bucket left holds. A window is therefore at most one bucket boundary plus
// one roll interval late: last24h covers the current hour and the 23 before
// it (between 23 and 24 hours of writes), last7d today and the 6 days before
// (6 to 7 days), last30d today and the 29 before.
//
// A member that leaves a window (a removal, the size cap) leaves its
// buckets too, so scoring again it starts from nothing.
//
// Limits: a member keeps the tie-break time of its last write in the window
// (an expiry changes the score, not the time). Writes sent straight to the
// window's sorted set with ZINCRBY (not through FCALL podium_submit) are not
// in any bucket: they stay until the window is reset. If no replica runs for
// longer than a bucket's time to live (window plus two days), buckets may
// expire before they are taken out and the window keeps their scores; a
// reset of the window starts it again. A window enabled on an existing board
// starts empty: it holds the writes made since.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// bucketTTL is how long a bucket outlives its last write: the window's
// length and two days, so a roller that stops for a while finds it still.
func bucketTTL(k board.Kind) time.Duration {
	n, hourly := board.WindowSize(k)
	if hourly {
		return time.Duration(n)*time.Hour + 48*time.Hour
	}
	return time.Duration(n+2) * 24 * time.Hour
}

func bucketKey(zset, bucket string) string { return zset + ":b:" + bucket }
func bucketsKey(zset string) string        { return zset + ":bs" }
func windowStateKey(id string) string      { return tagOf(id) + ":r:state" }

// windowArgs gives the submit script's window arguments for a write at now:
// per rolling window its index among the periods (1-based), the bucket of
// now, the board's window mode and the bucket's TTL.
func windowArgs(c *luaCall, b *board.Board, now time.Time) {
	for i, k := range b.Periods {
		if k.Rolling() {
			c.in("window").arg("period", i+1).arg("bucket", b.BucketAt(k, now)).arg("mode", string(b.Window)).arg("ttl", int(bucketTTL(k).Seconds()))
		}
	}
}

// rollChunk is how many members of a leaving bucket one roll step takes out.
const rollChunk = 500

// RollWindows takes the buckets that have left each rolling window of b out
// of it, at most maxSteps chunks in all; it reports whether work is left.
// Every replica may run it at once: each step reads and advances the
// window's progress in the same script, so no bucket is taken out twice.
func (s upkeep) RollWindows(ctx context.Context, b *board.Board, maxSteps int) (more bool, err error) {
	now := s.now()
	for _, k := range b.Periods {
		if !k.Rolling() {
			continue
		}
		if maxSteps, err = s.rollWindow(ctx, b, k, now, maxSteps); err != nil || maxSteps < 0 {
			return maxSteps < 0, err
		}
	}
	return false, nil
}

// rollWindow runs roll steps on one window until it is done or steps run
// out; it returns the steps left, -1 when it stopped with work left.
func (s upkeep) rollWindow(ctx context.Context, b *board.Board, k board.Kind, now time.Time, steps int) (int, error) {
	z := ZSetKey(b.ID, board.Period{Kind: k})
	c := scripts.roll.call(8, 9).key("def", defKey(b.ID)).key("zset", z).key("entries", entriesKey(z)).key("distinct", distinctKey(z)).
		key("counts", groupCountKey(z)).key("state", windowStateKey(b.ID)).key("buckets", bucketsKey(z)).key("freeze", freezeKey(b.ID)).
		encoding(b).arg("kind", string(k)).arg("mode", string(b.Window)).arg("floor", b.OldestBucket(k, now)).arg("chunk", rollChunk).
		arg("version", strconv.FormatInt(b.Version, 10))
	for ; steps > 0; steps-- {
		st, err := c.run(ctx, s.rdb).Text()
		if err != nil {
			return 0, fmt.Errorf("board: roll %s of %q: %w", k, b.ID, err)
		}
		if st == "stale" {
			return -1, nil // the definition changed: the next tick reads it again
		}
		if st != "idle" {
			s.wrote(ctx, z, teamZSetKey(z))
		}
		if st != "more" {
			return steps - 1, nil
		}
	}
	return -1, nil
}

// Roller rolls every board's windows; the app runs its Tick every few
// seconds in every replica. It remembers which bucket boundary it last
// rolled each window through, so between boundaries a tick costs one read
// of the board list.
type Roller struct {
	Store *Store
	done  map[string]string // board and kind -> the floor rolled through
}

// Tick rolls every window that has passed a bucket boundary since the last
// tick (all of them on the first).
func (r *Roller) Tick(ctx context.Context) error {
	bs, err := r.Store.Boards(ctx)
	if err != nil {
		return err
	}
	now := r.Store.now()
	next := map[string]string{} // the boards of now only: deleted ones go
	defer func() { r.done = next }()
	var errs []error
	for i := range bs {
		b := &bs[i]
		for _, k := range b.Periods {
			if !k.Rolling() {
				continue
			}
			id, floor := b.ID+"\x00"+string(k), b.OldestBucket(k, now)
			if r.done[id] == floor {
				next[id] = floor
				continue
			}
			left, err := r.Store.rollWindow(ctx, b, k, now, 1000)
			switch {
			case err != nil:
				errs = append(errs, err)
			case left >= 0:
				next[id] = floor
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	return errors.Join(errs...)
}

// dropWindows deletes the keys of the windows b had and upd turns off, so a
// window turned on again starts empty (and a changed mode meets no bucket
// of the other kind).
func (s upkeep) dropWindows(ctx context.Context, old, upd *board.Board) error {
	for _, k := range old.Periods {
		if !k.Rolling() || upd.Enabled(k) {
			continue
		}
		z := ZSetKey(old.ID, board.Period{Kind: k})
		ids, err := s.rdb.SMembers(ctx, bucketsKey(z)).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("board: drop window %s of %q: %w", k, old.ID, err)
		}
		del := []string{z, entriesKey(z), distinctKey(z), groupCountKey(z), bucketsKey(z)}
		del = append(del, teamKeys(z)...)
		for _, id := range ids {
			del = append(del, bucketKey(z, id))
		}
		pipe := s.rdb.TxPipeline()
		pipe.Del(ctx, del...)
		pipe.HDel(ctx, windowStateKey(old.ID), string(k))
		pipe.SRem(ctx, periodsKey(old.ID), z)
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("board: drop window %s of %q: %w", k, old.ID, err)
		}
		s.wrote(ctx, z)
	}
	return nil
}
