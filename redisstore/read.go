package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"podium/board"
)

// Page reads entries offset..offset+limit-1 of a period with ranks in the
// board's style: one round trip, whatever the board's size and ties.
func (s reader) Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error) {
	if err := board.CheckWindow(offset, limit); err != nil {
		return board.Page{}, err
	}
	return s.view(ctx, b, p, "page", offset, limit)
}

// Top is the first n entries of a period.
func (s reader) Top(ctx context.Context, b *board.Board, p board.Period, n int) (board.Page, error) {
	return s.Page(ctx, b, p, 0, n)
}

// Around is the k entries above and below a member, with the same tied ranks
// as the full board; near either end the window slides to stay 2k+1 long.
// Page.Offset is the window's first position; the member's own position is
// returned beside it. ErrNotFound if the member has no score in the period.
func (s reader) Around(ctx context.Context, b *board.Board, p board.Period, member string, k int) (board.Page, int, error) {
	if err := board.CheckMember(member); err != nil {
		return board.Page{}, 0, err
	}
	if k < 0 || k > board.MaxAround {
		return board.Page{}, 0, board.NewFieldError(board.ErrInvalidInput, "radius", "must be from 0 to %d", board.MaxAround)
	}
	pg, err := s.view(ctx, b, p, "around", member, k)
	if err != nil {
		return board.Page{}, 0, err
	}
	return pg, pg.Matched, nil
}

// RangeByScore lists the members whose score lies in [min, max], best first,
// offset and limit counting within the range. Page.Matched is the range's size.
func (s reader) RangeByScore(ctx context.Context, b *board.Board, p board.Period, min, max float64, offset, limit int) (board.Page, error) {
	if err := board.CheckWindow(offset, limit); err != nil {
		return board.Page{}, err
	}
	lo, hi, err := scoreBounds(min, max)
	if err != nil {
		return board.Page{}, err
	}
	return s.view(ctx, b, p, "range", lo, hi, offset, limit)
}

// CountRange counts the members whose score lies in [min, max].
func (s reader) CountRange(ctx context.Context, b *board.Board, p board.Period, min, max float64) (int, error) {
	lo, hi, err := scoreBounds(min, max)
	if err != nil {
		return 0, err
	}
	z, frozen, err := s.source(ctx, b, p)
	if err != nil {
		return 0, err
	}
	n, err := s.rdb.ZCount(ctx, z, lo, hi).Result()
	if err != nil {
		return 0, fmt.Errorf("board: count %s of %q: %w", p, b.ID, err)
	}
	if n == 0 && frozen.IsZero() {
		if past, err := s.FromPast(ctx, b, p); err != nil || past {
			if err != nil {
				return 0, err
			}
			_, matched, _, err := s.past.Range(ctx, b.ID, p.String(), min, max, b.Order == board.HigherIsBetter, 0, 1)
			return matched, err
		}
	}
	return int(n), nil
}

// Total is the number of members in a period.
func (s reader) Total(ctx context.Context, b *board.Board, p board.Period) (int, error) {
	z, frozen, err := s.source(ctx, b, p)
	if err != nil {
		return 0, err
	}
	n, err := s.rdb.ZCard(ctx, z).Result()
	if err != nil {
		return 0, fmt.Errorf("board: total %s of %q: %w", p, b.ID, err)
	}
	if n == 0 && frozen.IsZero() {
		total, _, err := s.pastTotal(ctx, b, p) // 0 unless it expired to the archive
		return total, err
	}
	return int(n), nil
}

func scoreBounds(min, max float64) (string, string, error) {
	if math.IsNaN(min) || math.IsNaN(max) {
		return "", "", board.NewFieldError(board.ErrInvalidInput, "min", "score bounds must be numbers")
	}
	if min > max {
		return "", "", board.NewFieldError(board.ErrInvalidInput, "min", "must not be above max")
	}
	return redisScore(min), redisScore(max), nil
}

// view reads a view of a period: from Redis, or from the archive once the
// period's keys have expired (FromPast); a frozen board's public copy is
// the whole answer.
func (s reader) view(ctx context.Context, b *board.Board, p board.Period, mode string, margs ...any) (board.Page, error) {
	since, err := s.publicFreeze(ctx, b)
	if err != nil {
		return board.Page{}, err
	}
	z, frozen := periodSource(b, p, since)
	pg, err := s.viewOf(ctx, b, p, z, namesOf(b.ID, since), mode, margs...)
	if !frozen.IsZero() {
		return pg, err
	}
	if (err == nil && pg.Total == 0) || (mode == "around" && errors.Is(err, board.ErrNotFound)) {
		total, past, perr := s.pastTotal(ctx, b, p)
		if perr != nil {
			return board.Page{}, perr
		}
		if past {
			return s.pastView(ctx, b, p, total, mode, margs...)
		}
	}
	return pg, err
}

// viewModes names the arguments of each mode of view.lua but arounds
// (views.go builds those).
var viewModes = map[string][]string{
	"page":   {"offset", "limit"},
	"around": {"member", "k"},
	"range":  {"min", "max", "offset", "limit"},
	"after":  {"score", "entry", "position", "limit"},
}

// viewCall is view.lua's call reading zset z with the display names in
// names, in mode with its arguments margs (viewModes).
func viewCall(b *board.Board, z, names, mode string, margs ...any) *luaCall {
	c := scripts.view.call(4, 5+len(margs)).key("zset", z).key("entries", entriesKey(z)).key("distinct", distinctKey(z)).key("names", names).
		encoding(b).arg("mode", mode).in(mode)
	for i, name := range viewModes[mode] {
		if i < len(margs) {
			c.arg(name, margs[i])
		}
	}
	return c
}

// viewOf reads a view of the scores in zset z (a period's, or a
// snapshot's) with the display names in names (namesOf).
func (s reader) viewOf(ctx context.Context, b *board.Board, p board.Period, z, names, mode string, margs ...any) (board.Page, error) {
	switch mode { // plain commands, or a script of a few (lean.go)
	case "page":
		if pg, ok, err := s.leanPage(ctx, b, p, z, names, margs[0].(int), margs[1].(int)); ok || err != nil {
			return pg, err
		}
	case "around":
		if pg, ok, err := s.leanAround(ctx, b, p, z, names, margs[0].(string), margs[1].(int)); ok || err != nil {
			return pg, err
		}
	}
	c := viewCall(b, z, names, mode, margs...)
	for attempt := 0; ; attempt++ {
		reply, err := c.run(ctx, s.rdb).Result()
		if err != nil {
			return board.Page{}, fmt.Errorf("board: %s %s of %q: %w", mode, p, b.ID, err)
		}
		pg, _, err := decodeView(b, p, reply)
		if errors.Is(err, board.ErrNotFound) {
			return board.Page{}, fmt.Errorf("board: member %q is not on %s of %q: %w", margs[0], p, b.ID, board.ErrNotFound)
		}
		if err != nil {
			return board.Page{}, err
		}
		stale := b.DenseDrifts() && hasUnranked(pg) && z == ZSetKey(b.ID, p) // a snapshot's index is built whole
		if !stale || attempt > 0 {
			return pg, nil
		}
		if _, err := s.reindex(ctx, b, p); err != nil {
			return board.Page{}, err
		}
	}
}

func entryOf(enc encoding, entry, score, name any) board.Entry {
	es, _ := entry.(string)
	ss, _ := score.(string)
	id, fields := enc.split(es)
	v, _ := strconv.ParseFloat(ss, 64)
	n, _ := name.(string)
	if n == "" {
		n = id
	}
	return board.Entry{Member: id, Name: n, Score: v, Fields: fields, Key: es}
}

func toInt(v any) int {
	switch x := v.(type) {
	case int64:
		return int(x)
	case string:
		n, _ := strconv.Atoi(x)
		return n
	}
	return 0
}

// Ranks is the standing of each listed member (friends, a team) in a period,
// in the order given; members without a score come back unranked.
func (s reader) Ranks(ctx context.Context, b *board.Board, p board.Period, members []string) ([]board.Standing, error) {
	if len(members) > board.MaxRankMembers {
		return nil, board.NewFieldError(board.ErrInvalidInput, "members", "at most %d at once", board.MaxRankMembers)
	}
	for _, m := range members {
		if err := board.CheckMember(m); err != nil {
			return nil, err
		}
	}
	out, err := s.standings(ctx, b, []board.Period{p}, members)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Member is a member's standing in the current period of every enabled kind.
func (s reader) Member(ctx context.Context, b *board.Board, member string) ([]board.Standing, error) {
	if err := board.CheckMember(member); err != nil {
		return nil, err
	}
	now := s.now()
	ps := make([]board.Period, len(b.Periods))
	for i, k := range b.Periods {
		ps[i] = b.Current(k, now)
	}
	out, err := s.standings(ctx, b, ps, []string{member})
	if err != nil {
		return nil, err
	}
	sts := make([]board.Standing, len(out))
	for i := range out {
		sts[i] = out[i][0]
	}
	return sts, nil
}

// PageOf is the 1-based page a member is on at the given page size.
func (s reader) PageOf(ctx context.Context, b *board.Board, p board.Period, member string, size int) (int, error) {
	if size < 1 || size > board.MaxPageSize {
		return 0, board.NewFieldError(board.ErrInvalidInput, "size", "must be from 1 to %d", board.MaxPageSize)
	}
	sts, err := s.Ranks(ctx, b, p, []string{member})
	if err != nil {
		return 0, err
	}
	if !sts[0].Ranked {
		return 0, fmt.Errorf("board: member %q is not on %s of %q: %w", member, p, b.ID, board.ErrNotFound)
	}
	return sts[0].Position/size + 1, nil
}

func (s reader) standings(ctx context.Context, b *board.Board, ps []board.Period, members []string) ([][]board.Standing, error) {
	since, err := s.publicFreeze(ctx, b)
	if err != nil {
		return nil, err
	}
	if encodingOf(b).fieldsWidth == 0 && b.RankStyle != board.Dense && since.IsZero() {
		return s.leanStandings(ctx, b, ps, members)
	}
	return s.scriptStandings(ctx, b, ps, members, since)
}

// scriptStandings is standings with standing.lua: any board, live or at
// its freeze (since).
func (s reader) scriptStandings(ctx context.Context, b *board.Board, ps []board.Period, members []string, since time.Time) ([][]board.Standing, error) {
	c := scripts.standing.call(1+3*len(ps), 4+len(members)).key("names", namesOf(b.ID, since)).encoding(b)
	for _, m := range members {
		c.arg("member", m)
	}
	frozen := make([]bool, len(ps))
	for i, p := range ps {
		z, at := periodSource(b, p, since)
		frozen[i] = !at.IsZero()
		c.in("period").key("zset", z).key("entries", entriesKey(z)).key("distinct", distinctKey(z))
	}
	for attempt := 0; ; attempt++ {
		reply, err := c.run(ctx, s.rdb).Result()
		if err != nil {
			return nil, fmt.Errorf("board: ranks in %q: %w", b.ID, err)
		}
		out, err := decodeStandings(b, ps, members, reply, func(row []any) int { return toInt(row[1]) })
		if err != nil {
			return nil, err
		}
		stale := -1
		for i := range out {
			for _, st := range out[i] {
				if st.Ranked && st.Rank == 0 {
					stale = i
				}
			}
		}
		if stale < 0 || attempt > 0 || !b.DenseDrifts() || frozen[stale] {
			return s.standingsPast(ctx, b, ps, members, out, frozen)
		}
		if _, err := s.reindex(ctx, b, ps[stale]); err != nil {
			return nil, err
		}
	}
}

// Search finds members of a period whose display name starts with prefix
// (case-insensitive) through the name index, never scanning the scores. It
// returns at most limit entries, best first; complete is false when it
// stopped after examining its budget of index entries.
func (s reader) Search(ctx context.Context, b *board.Board, p board.Period, prefix string, limit int) (entries []board.Entry, complete bool, err error) {
	if limit < 1 || limit > board.MaxPageSize {
		return nil, false, board.NewFieldError(board.ErrInvalidInput, "limit", "must be from 1 to %d", board.MaxPageSize)
	}
	if strings.TrimSpace(prefix) == "" || board.HasControl(prefix) || len(prefix) > board.MaxMemberLen {
		return nil, false, board.NewFieldError(board.ErrInvalidInput, "q", "must be 1-%d printable characters", board.MaxMemberLen)
	}
	since, err := s.publicFreeze(ctx, b)
	if err != nil {
		return nil, false, err
	}
	z, frozen := periodSource(b, p, since)
	reply, err := scripts.search.call(5, 7).
		key("zset", z).key("entries", entriesKey(z)).key("distinct", distinctKey(z)).key("names", namesOf(b.ID, since)).key("name_idx", nameIndexOf(b.ID, since)).
		encoding(b).arg("prefix", strings.ToLower(prefix)).arg("limit", limit).arg("budget", searchBudget).
		run(ctx, s.rdb).Result()
	if err != nil {
		return nil, false, fmt.Errorf("board: search %s of %q: %w", p, b.ID, err)
	}
	arr, _ := reply.([]any)
	if len(arr) == 0 {
		return nil, false, errors.New("board: search: empty reply")
	}
	enc := encodingOf(b)
	for i := 1; i+4 < len(arr); i += 5 {
		e := entryOf(enc, arr[i], arr[i+1], arr[i+4])
		e.Rank, e.Position = toInt(arr[i+2]), toInt(arr[i+3])
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b board.Entry) int { return a.Position - b.Position })
	if len(entries) == 0 && frozen.IsZero() {
		if past, err := s.FromPast(ctx, b, p); err != nil || past {
			if err != nil {
				return nil, false, err
			}
			entries, err := s.past.Search(ctx, b.ID, p.String(), strings.ToLower(prefix), limit)
			return entries, true, err
		}
	}
	return entries, toInt(arr[0]) == 1, nil
}

// searchBudget is how many name-index entries one search may examine.
const searchBudget = 2000
