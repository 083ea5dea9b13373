package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// FunctionLibrary is the name of the Redis Function library outside writers
// call: FCALL podium_submit 1 lb:{<board>}:def <member> <op> <value> ...
// (redisstore/lua/function.lua says the rest).
const FunctionLibrary = "podium"

// functionSource is the library: the app's own submit script, wrapped as a
// local function, and the entry point that builds its keys and arguments
// from the board's definition and period schedule. Both paths run the same
// code, so a direct write keeps every structure as an API write does.
func (s upkeep) functionSource() string {
	submit, err := assemble(luaSource("submit"))
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	b.WriteString("#!lua name=" + FunctionLibrary + "\n")
	fmt.Fprintf(&b, "local RECENT_LEN, IDEM_TTL, AUDIT_KEEP = %d, %d, %d\n", s.recentLen, int(s.idemTTL.Seconds()), s.auditKeep)
	fmt.Fprintf(&b, "local WINDOW_TTL = {last24h = %d, last7d = %d, last30d = %d}\n",
		int(bucketTTL(board.Last24h).Seconds()), int(bucketTTL(board.Last7d).Seconds()), int(bucketTTL(board.Last30d).Seconds()))
	b.WriteString("local function submit_script(KEYS, ARGV)\n")
	b.WriteString(submit)
	b.WriteString("\nend\n")
	b.WriteString(luaSource("function"))
	return b.String()
}

// LoadFunctions loads (or replaces) the podium Function library, so outside
// writers can FCALL podium_submit: on a Redis Cluster into every primary,
// since a library lives in each node (replicas get it from theirs); the app
// runs it at start and hourly, so a primary added later gets it too. It
// needs Redis 7 or newer; the embedded store has no functions and returns an
// error the caller may log and go on.
func (s upkeep) LoadFunctions(ctx context.Context) error {
	src := s.functionSource()
	var err error
	if c, ok := s.rdb.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			if err := n.FunctionLoadReplace(ctx, src).Err(); err != nil {
				return fmt.Errorf("%s: %w", n.Options().Addr, err)
			}
			return nil
		})
	} else {
		err = s.rdb.FunctionLoadReplace(ctx, src).Err()
	}
	if err != nil {
		return fmt.Errorf("board: load the %s function library: %w", FunctionLibrary, err)
	}
	return nil
}

// EnsureFunctions loads the library into every primary that lacks it (a
// primary added to a Cluster, a Redis replaced by an empty one), so FCALL
// works there within one call of this rather than at the next hourly
// reload, and returns how many primaries it loaded. A library already there
// is left alone: replicas of two app versions do not replace each other's.
func (s upkeep) EnsureFunctions(ctx context.Context) (int, error) {
	src := s.functionSource()
	var loaded atomic.Int32
	ensure := func(ctx context.Context, c redis.Cmdable, where string) error {
		libs, err := c.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: FunctionLibrary}).Result()
		if err != nil {
			return fmt.Errorf("%s: list functions: %w", where, err)
		}
		for _, l := range libs {
			if l.Name == FunctionLibrary {
				return nil
			}
		}
		// Another replica may load it at the same moment: that is as good.
		if err := c.FunctionLoad(ctx, src).Err(); err != nil && !strings.Contains(err.Error(), "already exists") {
			return fmt.Errorf("%s: %w", where, err)
		}
		loaded.Add(1)
		return nil
	}
	var err error
	if c, ok := s.rdb.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return ensure(ctx, n, n.Options().Addr) })
	} else {
		err = ensure(ctx, s.rdb, "redis")
	}
	if err != nil {
		return int(loaded.Load()), fmt.Errorf("board: the %s function library: %w", FunctionLibrary, err)
	}
	return int(loaded.Load()), nil
}

// bucketDays stands in the schedule's kinds for the days of daily buckets.
const bucketDays board.Kind = "bday"

// How far ahead the schedule for FCALL reaches; the app rewrites it hourly,
// so a writer keeps working through an outage of the app this long.
const scheduleHorizon = 35 * 24 * time.Hour

// schedule lists, per enabled calendar period kind, the periods from the
// one holding now to the one holding now+horizon, as "start key start key ...
// end" with instants in microseconds since 1970: FCALL podium_submit picks
// the period of now from it, since Lua in Redis knows no time zones. With a
// window of daily buckets, field "bday" lists the days the same way: a
// bucket's id is its day's key (redisstore/window.go).
func scheduleArgs(b *board.Board, now time.Time) []any {
	var out []any
	kinds := slices.Clone(b.Periods)
	if b.Enabled(board.Last7d) || b.Enabled(board.Last30d) {
		kinds = append(kinds, bucketDays)
	}
	for _, k := range kinds {
		field := string(k)
		if k == bucketDays {
			k, field = board.Daily, "bday"
		}
		if !k.Calendar() {
			continue
		}
		var sb strings.Builder
		p := b.Current(k, now)
		limit := now.Add(scheduleHorizon)
		for {
			sb.WriteString(strconv.FormatInt(p.Start.UnixMicro(), 10) + " " + p.Key + " ")
			if !p.End.Before(limit) {
				break
			}
			p = p.Next()
		}
		sb.WriteString(strconv.FormatInt(p.End.UnixMicro(), 10))
		out = append(out, field, sb.String())
	}
	return out
}

// writeSchedule stores b's schedule if b is still the current definition.
func (s upkeep) writeSchedule(ctx context.Context, b *board.Board) error {
	fields := scheduleArgs(b, s.now())
	c := scripts.sched.call(2, 1+len(fields)).key("def", defKey(b.ID)).key("sched", schedKey(b.ID)).
		arg("version", strconv.FormatInt(b.Version, 10)).args("field", fields...)
	if err := c.run(ctx, s.rdb).Err(); err != nil {
		return fmt.Errorf("board: schedule of %q: %w", b.ID, err)
	}
	return nil
}

// RefreshSchedules rewrites every board's period schedule; the app runs it at
// start and hourly in every replica (each write is idempotent).
func (s upkeep) RefreshSchedules(ctx context.Context) error {
	bs, err := s.Boards(ctx)
	if err != nil {
		return err
	}
	for i := range bs {
		if err := s.writeSchedule(ctx, &bs[i]); err != nil {
			return err
		}
	}
	return nil
}
