package redisstore

// Reading a league close's results (league_close.go): a period's whole
// result, some members' results (from the archive once the period's keys
// are gone), and the periods whose close was applied.

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
)

// encodeResult is a result as z:Lr keeps it.
func encodeResult(r board.LeagueResult) string {
	return fmt.Sprintf("%d %d %d %d %d", r.Tier, r.Cohort, r.Rank, int(r.Move), r.Next)
}

// decodeResult reads what encodeResult writes.
func decodeResult(member, v string) (board.LeagueResult, bool) {
	var n [5]int
	f := strings.Fields(v)
	if len(f) != len(n) {
		return board.LeagueResult{}, false
	}
	for i, s := range f {
		var err error
		if n[i], err = strconv.Atoi(s); err != nil {
			return board.LeagueResult{}, false
		}
	}
	return board.LeagueResult{Member: member, Tier: n[0], Cohort: n[1], Rank: n[2], Move: board.Move(n[3]), Next: n[4]}, true
}

// LeagueResults reads the results of league period p's close, by tier,
// cohort and rank (members without a score last), then member; ok is
// false when the close has not been saved, or its keys have expired.
func (s segmentStore) LeagueResults(ctx context.Context, b *board.Board, p board.Period) (rs []board.LeagueResult, ok bool, err error) {
	state, err := s.rdb.HGet(ctx, leagueClosedKey(b.ID), p.String()).Result()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("league: close of %s of %q: %w", p, b.ID, err)
	}
	z := ZSetKey(b.ID, p)
	if !strings.HasPrefix(state, "a ") && !strings.HasPrefix(state, "c ") {
		return nil, false, nil
	}
	iter := s.rdb.HScan(ctx, resultKey(z), 0, "", int64(closeChunk)).Iterator()
	for iter.Next(ctx) {
		m := iter.Val()
		if !iter.Next(ctx) {
			break
		}
		if r, ok := decodeResult(m, iter.Val()); ok {
			rs = append(rs, r)
		}
	}
	if err := iter.Err(); err != nil {
		return nil, false, fmt.Errorf("league: results of %s of %q: %w", p, b.ID, err)
	}
	if len(rs) == 0 {
		// Nobody played, or the period's keys expired with its result.
		n, err := s.rdb.Exists(ctx, ZSetKey(b.ID, p), placesKey(z)).Result()
		if err != nil {
			return nil, false, fmt.Errorf("league: results of %s of %q: %w", p, b.ID, err)
		}
		if n > 0 {
			return nil, false, nil
		}
	}
	SortLeagueResults(rs)
	return rs, true, nil
}

// SortLeagueResults orders results by tier, cohort and rank (members
// without a score last), then member.
func SortLeagueResults(rs []board.LeagueResult) {
	slices.SortFunc(rs, func(a, b board.LeagueResult) int {
		if a.Tier != b.Tier {
			return a.Tier - b.Tier
		}
		if a.Cohort != b.Cohort {
			return a.Cohort - b.Cohort
		}
		ra, rb := a.Rank, b.Rank
		if ra == 0 {
			ra = int(^uint(0) >> 1)
		}
		if rb == 0 {
			rb = int(^uint(0) >> 1)
		}
		if ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Member, b.Member)
	})
}

// LeagueCloses lists the league periods of board b whose close was
// applied and whose state Redis still holds, oldest first.
func (s segmentStore) LeagueCloses(ctx context.Context, b *board.Board) ([]LeagueClose, error) {
	m, err := s.rdb.HGetAll(ctx, leagueClosedKey(b.ID)).Result()
	if err != nil {
		return nil, fmt.Errorf("league: closes of %q: %w", b.ID, err)
	}
	var out []LeagueClose
	for label, v := range m {
		f := strings.Fields(v)
		kind, key, ok := strings.Cut(label, ":")
		if len(f) != 3 || f[0] != "a" || !ok {
			continue
		}
		at, err1 := strconv.ParseInt(f[1], 10, 64)
		end, err2 := strconv.ParseInt(f[2], 10, 64)
		k, err3 := board.ParseKind(kind)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		p, err := b.PeriodOf(k, key)
		if err != nil {
			continue
		}
		out = append(out, LeagueClose{Period: p, End: time.UnixMilli(end).UTC(), At: time.UnixMilli(at).UTC()})
	}
	slices.SortFunc(out, func(a, b LeagueClose) int { return a.End.Compare(b.End) })
	return out, nil
}

// LeagueResultsOf is the close's result of each listed member of league
// period p that has one (a member who was not in the league then has
// none): from Redis while the period's keys are there, else from the
// archive. Empty before the close.
func (s segmentStore) LeagueResultsOf(ctx context.Context, b *board.Board, p board.Period, members []string) (map[string]board.LeagueResult, error) {
	out := map[string]board.LeagueResult{}
	if len(members) == 0 {
		return out, nil
	}
	state, err := s.rdb.HGet(ctx, leagueClosedKey(b.ID), p.String()).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("league: close of %s of %q: %w", p, b.ID, err)
	}
	z := ZSetKey(b.ID, p)
	if strings.HasPrefix(state, "a ") || strings.HasPrefix(state, "c ") {
		vs, err := s.rdb.HMGet(ctx, resultKey(z), members...).Result()
		if err != nil {
			return nil, fmt.Errorf("league: results of %s of %q: %w", p, b.ID, err)
		}
		for i, v := range vs {
			if str, ok := v.(string); ok {
				if r, ok := decodeResult(members[i], str); ok {
					out[members[i]] = r
				}
			}
		}
		if len(out) > 0 {
			return out, nil
		}
		if n, err := s.rdb.Exists(ctx, resultKey(z)).Result(); err != nil || n > 0 {
			return out, err // the result is here: none of them has one
		}
	}
	if s.past == nil || !p.Ended(s.Now()) {
		return out, nil
	}
	return s.past.LeagueResultsOf(ctx, b.ID, p.String(), members)
}
