package archive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
)

// Passes of a period's archiving, as its state records them.
const (
	PassFirst = 1 // copied soon after the period closed
	PassFinal = 2 // copied again after the grace period: late writes are in
)

// Defaults of an Archiver.
const (
	DefaultGrace    = time.Hour
	DefaultInterval = time.Minute
)

// ErrInProgress refuses to archive a period that has not closed.
var ErrInProgress = errors.New("archive: the period has not closed yet")

// Archiver copies closed periods from Redis to the archive.
type Archiver struct {
	Store    *redisstore.Store
	DB       *DB
	Grace    time.Duration // how long after a period closes the final pass waits for late writes
	Interval time.Duration // how often Run looks for work
	Linger   time.Duration // how long expiring keys live (DefaultLinger)
	LockTTL  time.Duration // how long a period's lock outlives its last renewal (DefaultLockTTL)
	Log      *slog.Logger

	stats stats
	scan  redisstore.KeyScan // where the walk for periods written straight into Redis stopped
}

func (a *Archiver) rdb() redis.UniversalClient { return a.Store.Client() }

func (a *Archiver) grace() time.Duration {
	if a.Grace > 0 {
		return a.Grace
	}
	return DefaultGrace
}

// Run archives what is due every Interval until ctx ends. Every replica runs
// it; the lock and state in Redis make each pass happen once.
func (a *Archiver) Run(ctx context.Context) {
	every := a.Interval
	if every <= 0 {
		every = DefaultInterval
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		_, err := a.Due(ctx)
		if err != nil && ctx.Err() == nil {
			a.Log.Error("archive: a pass failed; it is tried again at the next one", "error", err)
		}
		n, auditErr := a.CopyAudit(ctx)
		if auditErr != nil && ctx.Err() == nil {
			a.Log.Error("archive: copying the audit log failed; it is tried again at the next pass", "error", auditErr)
		}
		if ctx.Err() == nil { // a pass cut short by shutdown is no failure
			a.stats.endPass(n, err == nil && auditErr == nil)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Due runs every pass that is due on every board, and returns how many
// periods it copied. A period is due for its first pass once it has closed,
// and for its final pass once the grace period has passed too. Periods
// written straight into Redis are found first (discover).
func (a *Archiver) Due(ctx context.Context) (int, error) {
	boards, err := a.Store.Boards(ctx)
	if err != nil {
		return 0, err
	}
	var errs []error
	if _, err := a.discover(ctx, boards, scanBudget); err != nil {
		errs = append(errs, err)
	}
	now := a.Store.Now()
	copied := 0
	for i := range boards {
		b := &boards[i]
		states, err := a.done(ctx, b)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ps, err := a.Store.StoredPeriods(ctx, b)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, p := range ps {
			if !p.Ended(now) {
				continue
			}
			pass := a.passAt(p, now)
			if states[p.String()] >= pass {
				continue
			}
			ok, err := a.copyPass(ctx, b, p, pass)
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				copied++
			}
		}
		if _, err := a.Settle(ctx, b); err != nil {
			errs = append(errs, err)
		}
	}
	return copied, errors.Join(errs...)
}

// Period archives one closed period now, whatever its state, for operators
// (web archive run); the pass it records is final once the grace period has
// passed. It refuses a period in progress.
func (a *Archiver) Period(ctx context.Context, b *board.Board, p board.Period) (int, error) {
	now := a.Store.Now()
	if !p.Ended(now) {
		return 0, fmt.Errorf("%w: %s of %q ends %s", ErrInProgress, p, b.ID, p.End.Format(time.RFC3339))
	}
	ok, err := a.copyPass(ctx, b, p, -a.passAt(p, now))
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("archive: %s of %q is being archived by another replica; try again in a moment", p, b.ID)
	}
	return a.DB.Count(ctx, b.ID, p.String())
}

// rawStates reads the archive state of each period of a board, as stored:
// "<pass> <time µs>", then " changed" when a write to the closed period
// lowered it to 0 (copy again), or board.ExpiredMark and a time once its
// keys were set to expire.
func (a *Archiver) rawStates(ctx context.Context, b *board.Board) (map[string]string, error) {
	m, err := a.rdb().HGetAll(ctx, redisstore.ArchiveState(b.ID)).Result()
	if err != nil {
		return nil, fmt.Errorf("archive: state of %q: %w", b.ID, err)
	}
	return m, nil
}

// passOf is the pass a stored state records.
func passOf(state string) int {
	pass, _, _ := strings.Cut(state, " ")
	n, _ := strconv.Atoi(pass)
	return n
}

func expired(state string) bool { return strings.Contains(state, redisstore.ExpiredMark) }

// passAt is the pass a closed period is due for at now: the final one once
// the grace period has passed.
func (a *Archiver) passAt(p board.Period, now time.Time) int {
	if now.Before(p.End.Add(a.grace())) {
		return PassFirst
	}
	return PassFinal
}

// states reads how far each period of a board got.
func (a *Archiver) states(ctx context.Context, b *board.Board) (map[string]int, error) {
	m, err := a.rawStates(ctx, b)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = passOf(v)
	}
	return out, nil
}

// done is how far each period of a board got, as its state in Redis says,
// for the periods the archive holds: a pass the state records but whose copy
// the archive lacks (a new database, a lost SQLite volume) is to run again.
func (a *Archiver) done(ctx context.Context, b *board.Board) (map[string]int, error) {
	states, err := a.states(ctx, b)
	if err != nil {
		return nil, err
	}
	held, err := a.DB.Periods(ctx, b.ID)
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, h := range held {
		has[h.Period] = true
	}
	for k := range states {
		if !has[k] {
			delete(states, k)
		}
	}
	return states, nil
}

// record raises a period's state, never lowers it (a slow replica finishing
// a first pass after another's final one), only while the lock is ours
// (else 0), and only if the state is still the one the copy's snapshot saw
// (else 2): a removal or a reset of the closed period since then changed it,
// so this copy misses that change and the next pass copies again.
// KEYS: state, lock. ARGV: period, pass, time, token, state at the snapshot.
var record = redis.NewScript(`
if redis.call('GET', KEYS[2]) ~= ARGV[4] then return 0 end
local v = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if v ~= ARGV[5] then return 2 end
local cur = tonumber(string.match(v, '^%d+') or '0') or 0 -- never tonumber(nil): miniredis' Lua refuses it
if tonumber(ARGV[2]) >= cur then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3]) end
return 1`)

// copyPass copies a period under its lock and records the pass; ok is false
// when another replica holds the lock or the pass is already recorded. A
// negative pass forces the copy whatever the state (operators).
func (a *Archiver) copyPass(ctx context.Context, b *board.Board, p board.Period, pass int) (ok bool, err error) {
	force := pass < 0
	if force {
		pass = -pass
	}
	l, err := a.lock(ctx, b, p)
	if err != nil || l == nil {
		return false, err
	}
	defer l.release()
	ok, err = a.copyHeld(l, b, p, pass, force)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(l.ctx), errLockLost) {
		return false, fmt.Errorf("archive: %s of %q: %w; another pass copies it", p, b.ID, errLockLost)
	}
	return ok, err
}

// copyHeld is copyPass once the lock is taken: the work stops when the
// lock is lost.
func (a *Archiver) copyHeld(l *lease, b *board.Board, p board.Period, pass int, force bool) (bool, error) {
	ctx := l.ctx
	// Snapshots of passes that died: this one holds the lock now.
	a.dropStaleSnapshots(ctx, b)
	if !force { // read again under the lock: another replica may have just finished
		states, err := a.done(ctx, b)
		if err != nil {
			return false, err
		}
		if states[p.String()] >= pass {
			return false, nil
		}
	}
	if err := a.closeLeague(ctx, b, p); err != nil {
		return false, err
	}
	n, seen, err := a.copy(ctx, b, p, pass, l.token)
	if err != nil {
		return false, err
	}
	ours, err := record.Run(ctx, a.rdb(), []string{redisstore.ArchiveState(b.ID), redisstore.ArchiveLock(b.ID, p)}, p.String(), pass, a.Store.Now().UnixMicro(), l.token, seen).Int()
	if err != nil {
		return false, fmt.Errorf("archive: record %s of %q: %w", p, b.ID, err)
	}
	switch ours {
	case 0:
		return false, fmt.Errorf("archive: lost the lock on %s of %q while copying; another replica records it", p, b.ID)
	case 2:
		a.Log.Info("archive: the period changed while it was copied; the next pass copies it again", "board", b.ID, "period", p.String())
		return false, nil
	}
	a.Log.Info("archived", "board", b.ID, "period", p.String(), "pass", pass, "members", n, "to", a.DB.String())
	a.stats.copied.Add(1)
	a.stats.rows.Add(int64(n))
	return true, nil
}

// dropStaleSnapshots deletes the snapshots of the board's passes that died
// (or lost their lock) before they closed them; a failure only leaves them
// to their TTL, so it is logged, not returned.
func (a *Archiver) dropStaleSnapshots(ctx context.Context, b *board.Board) {
	n, err := a.Store.DropStaleSnapshots(ctx, b)
	if err != nil && ctx.Err() == nil {
		a.Log.Warn("archive: the snapshots of passes that died are left to expire", "board", b.ID, "error", err)
	}
	if n > 0 {
		a.Log.Info("archive: dropped the snapshots of passes that died", "board", b.ID, "snapshots", n)
	}
}

// pageSize is how many entries each read of Redis takes while copying.
var pageSize = 1000 // a variable only so that tests can make it small

// snapshotTTL bounds how long a copy of a period may sit in Redis should the
// archiver die before it drops it, and no later pass over its board drop it
// sooner (DropStaleSnapshots).
const snapshotTTL = time.Hour

// copy replaces the archive's copy of a period with what Redis holds, in one
// transaction: from a snapshot taken atomically (late writes and removals
// during the copy cannot make it skip or repeat a member), read a page at a
// time (a million members never sit in this process's memory at once). The
// transaction commits only if it wrote as many rows as the snapshot holds,
// and never replaces a later pass's copy with an earlier one's. It returns
// the period's archive state as the snapshot saw it. The snapshot is taken
// for the pass holding the period's lock with token, and recorded with it
// (board.ArchiveSnapshot); "" takes an unrecorded one (tests).
func (a *Archiver) copy(ctx context.Context, b *board.Board, p board.Period, pass int, token string) (int, string, error) {
	def, err := json.Marshal(board.SpecOf(b))
	if err != nil {
		return 0, "", err
	}
	var snap *redisstore.Snapshot
	if token == "" {
		snap, err = a.Store.Snapshot(ctx, b, p, snapshotTTL)
	} else {
		snap, err = a.Store.ArchiveSnapshot(ctx, b, p, snapshotTTL, token)
	}
	if err != nil {
		return 0, "", err // ErrNotFound: the board was deleted; nothing to copy
	}
	defer snap.Close(context.WithoutCancel(ctx))
	if expired(snap.State) {
		// Its keys are gone or going: Redis holds less than the archive.
		return 0, "", fmt.Errorf("archive: %s of %q has expired from Redis; the archive's copy is final: %w", p, b.ID, board.ErrArchived)
	}
	n, err := a.write(ctx, b, p, pass, snap, string(def))
	return n, snap.State, err
}
