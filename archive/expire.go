package archive

// After the copies: closed periods beyond a board's retention leave Redis
// once the archive holds their final copy, and archived copies of periods
// that were reset since are dropped.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
)

// DefaultLinger is how long a period's keys live once set to expire: reads
// already under way finish on Redis; later ones go to the archive, which
// holds the same rows.
const DefaultLinger = time.Minute

func (a *Archiver) linger() time.Duration {
	if a.Linger > 0 {
		return a.Linger
	}
	return DefaultLinger
}

// swapState replaces a period's state (none given: deletes it), only if
// it is still the one read. KEYS: state. ARGV: period, state read, new state.
var swapState = redis.NewScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if ARGV[3] then return redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
return redis.call('HDEL', KEYS[1], ARGV[1])`)

// Settle expires the board's closed periods beyond its retention and drops
// archived copies of periods that were reset; it returns how many periods
// it set to expire. Run and Due call it after their copies.
func (a *Archiver) Settle(ctx context.Context, b *board.Board) (int, error) {
	// The periods before the states: a period that expires in between then
	// shows as listed, not as reset (drop checks again under the lock).
	stored, err := a.Store.StoredPeriods(ctx, b)
	if err != nil {
		return 0, err
	}
	raw, err := a.rawStates(ctx, b)
	if err != nil {
		return 0, err
	}
	// The definition as it is now: Due read b before its copies, and a
	// team mode turned on since must not let a copy without teams expire.
	// (A mode change after this read changes the states read above, which
	// ExpirePeriod checks.)
	fresh, err := a.Store.ReadBoard(ctx, b.ID)
	if err != nil {
		return 0, err
	}
	b = &fresh
	a.dropStaleSnapshots(ctx, b) // a pass that died on a period no pass copies again (reset since)
	expiring := 0
	now := a.Store.Now()
	var errs []error
	inRedis := map[string]bool{}
	closed := map[board.Kind][]board.Period{}
	for _, p := range stored {
		inRedis[p.String()] = true
		if p.Ended(now) {
			closed[p.Kind] = append(closed[p.Kind], p)
		}
	}
	for label, state := range raw {
		if !inRedis[label] && !expired(state) {
			if err := a.drop(ctx, b, label, state); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, ps := range closed {
		slices.SortFunc(ps, func(x, y board.Period) int { return y.End.Compare(x.End) }) // newest first
		for _, p := range ps[min(b.Retention, len(ps)):] {
			state := raw[p.String()]
			if passOf(state) < PassFinal || expired(state) {
				continue // not safely archived yet
			}
			ok, err := a.expire(ctx, b, p, state)
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				expiring++
			}
		}
	}
	return expiring, errors.Join(errs...)
}

// expire sets a period's keys to expire once the archive is checked to hold
// as many rows as Redis, and on a team board as many teams: a crash at any
// point before leaves the keys as they are, and the next pass tries again.
func (a *Archiver) expire(ctx context.Context, b *board.Board, p board.Period, state string) (bool, error) {
	inRedis, err := a.Store.Count(ctx, b, p)
	if err != nil {
		return false, err
	}
	held, err := a.DB.Count(ctx, b.ID, p.String())
	if err != nil {
		return false, err
	}
	if held != inRedis {
		// Written since its final copy by something that did not mark it
		// (a plain ZADD from outside): mark it, so the next pass copies it.
		if err := a.markChanged(ctx, b, p, state); err != nil {
			return false, err
		}
		return false, fmt.Errorf("archive: %s of %q: the archive holds %d rows and Redis %d; its keys stay, and the next pass copies it again", p, b.ID, held, inRedis)
	}
	if b.Teams != board.TeamsOff {
		teams, err := a.Store.TeamPage(redisstore.LiveStandings(ctx), b, p, 0, 1)
		if err != nil {
			return false, err
		}
		n, _, ok, err := a.DB.Past().TeamHeld(ctx, b.ID, p.String())
		if err != nil {
			return false, err
		}
		if !ok || n != teams.Total {
			// Copied without its team standing (by a version before the
			// archive kept them, or before teams were turned on), or with
			// another: copy it again before its keys go.
			if err := a.markChanged(ctx, b, p, state); err != nil {
				return false, err
			}
			a.Log.Info("archive: copying again for its team standing before it expires", "board", b.ID, "period", p.String(),
				"teams", teams.Total, "archived", n, "held", ok)
			return false, nil
		}
	}
	if kept, err := a.DB.segmentsKept(ctx, b, p); err != nil || !kept {
		if err == nil { // copied before the archive kept segments: again, first
			err = a.markChanged(ctx, b, p, state)
			a.Log.Info("archive: copying again for its segments before it expires", "board", b.ID, "period", p.String())
		}
		return false, err
	}
	ok, err := a.Store.ExpirePeriod(ctx, b, p, state, a.linger())
	if err != nil {
		return false, err
	}
	if ok {
		a.stats.expired.Add(1)
		a.Log.Info("expired from Redis", "board", b.ID, "period", p.String(), "members", held, "kept", b.Retention)
	}
	return ok, nil
}

// markChanged lowers a period's state so that the next pass copies it
// again, if the state is still the one read.
func (a *Archiver) markChanged(ctx context.Context, b *board.Board, p board.Period, state string) error {
	if _, err := swapState.Run(ctx, a.rdb(), []string{redisstore.ArchiveState(b.ID)}, p.String(), state, "0 "+strconv.FormatInt(a.Store.Now().UnixMicro(), 10)+" changed").Result(); err != nil {
		return fmt.Errorf("archive: mark %s of %q changed: %w", p, b.ID, err)
	}
	return nil
}

// drop deletes the archived copy of a period that Redis no longer lists and
// whose keys did not expire: an admin reset it. It works under the period's
// lock, so no copy of the period is being written meanwhile (one that began
// before the reset would otherwise commit its rows after the delete), and
// checks again there that the state is the one read and Redis holds none
// of the period; else it leaves all to the next pass.
func (a *Archiver) drop(ctx context.Context, b *board.Board, label, state string) error {
	kind, key, ok := cutPeriod(label)
	p, err := b.PeriodOf(kind, key)
	if !ok || err != nil || !p.Kind.Calendar() {
		return nil // not a period this version knows
	}
	l, err := a.lock(ctx, b, p)
	if err != nil || l == nil {
		return err
	}
	defer l.release()
	ctx = l.ctx
	now, err := a.rdb().HGet(ctx, redisstore.ArchiveState(b.ID), label).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("archive: state of %s of %q: %w", label, b.ID, err)
	}
	if now != state || expired(now) {
		return nil
	}
	if n, err := a.Store.Count(ctx, b, p); err != nil || n > 0 {
		return err
	}
	if err := a.DB.Delete(ctx, b.ID, label); err != nil {
		return err
	}
	if _, err := swapState.Run(ctx, a.rdb(), []string{redisstore.ArchiveState(b.ID)}, label, state).Result(); err != nil {
		return fmt.Errorf("archive: forget %s of %q: %w", label, b.ID, err)
	}
	a.stats.dropped.Add(1)
	a.Log.Info("archive: dropped the copy of a period that was reset", "board", b.ID, "period", label)
	return nil
}

// cutPeriod splits a period's label ("week:2026-W47", "all") into its kind
// and key.
func cutPeriod(label string) (board.Kind, string, bool) {
	kind, key, _ := strings.Cut(label, ":")
	k, err := board.ParseKind(kind)
	return k, key, err == nil
}
