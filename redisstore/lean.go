package redisstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// A page of a live period is read with plain commands, not a script: most
// of a script's cost is the interpreter's per-row work (each row's reply
// converted into Lua and back, its tie group built), which Go does here
// for free. Two round trips: ZCARD and the rows in one MULTI (so the total
// and the rows are of one moment), then HMGET of their display names
// (names may change in between; a name is no part of the order).
//
// Ranks follow from the rows themselves: ordinal is the position, and a
// competition rank is the position of the row's tie group's first member.
// For the page's first group that member may sit before the page: the
// read starts up to leanLookBack rows early to find it, and, in a tie group
// longer than that, leaves the page to view.lua, which counts it with
// ZCOUNT. Dense ranks need the tie-group index (view.lua), as do a frozen
// board's public names (names_get).

// leanLookBack is how many rows before a page are read to find where its
// first tie group starts.
const leanLookBack = 16

// leanPage reads a page of zset z with the names in names; ok is false
// when it cannot (view.lua must), and nothing was decided.
func (s reader) leanPage(ctx context.Context, b *board.Board, p board.Period, z, names string, offset, limit int) (pg board.Page, ok bool, err error) {
	if b.RankStyle == board.Dense || names != namesKey(b.ID) {
		return board.Page{}, false, nil
	}
	enc := encodingOf(b)
	back := 0
	if b.RankStyle != board.Ordinal {
		back = min(offset, leanLookBack)
	}
	start, stop := int64(offset-back), int64(offset+limit-1)
	var total *redis.IntCmd
	var rows *redis.ZSliceCmd
	if _, err := s.rdb.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		total = pipe.ZCard(ctx, z)
		if enc.desc {
			rows = pipe.ZRevRangeWithScores(ctx, z, start, stop)
		} else {
			rows = pipe.ZRangeWithScores(ctx, z, start, stop)
		}
		return nil
	}); err != nil {
		return board.Page{}, false, fmt.Errorf("board: page %s of %q: %w", p, b.ID, err)
	}
	pg = board.Page{Period: p, Total: int(total.Val()), Offset: offset, Matched: int(total.Val())}
	ids, ok := leanRows(b, &pg, rows.Val(), back, -1)
	if !ok || len(ids) == 0 {
		return pg, ok, nil
	}
	got, err := s.rdb.HMGet(ctx, names, ids...).Result()
	if err != nil {
		return board.Page{}, false, fmt.Errorf("board: names of %s of %q: %w", p, b.ID, err)
	}
	nameRows(&pg, got)
	return pg, true, nil
}

// leanRows ranks rows read from position pg.Offset-back into pg's
// entries, those from pg.Offset on, and says their member ids; ok is false
// when the first row's tie group may start before the rows read. better,
// when not -1, is how many members rank strictly better than the first
// row (a competition board's tie group is its score).
func leanRows(b *board.Board, pg *board.Page, zs []redis.Z, back, better int) (ids []string, ok bool) {
	if len(zs) <= back {
		return nil, true // past the end
	}
	enc := encodingOf(b)
	entry := func(i int) string { e, _ := zs[i].Member.(string); return e }
	fieldsOf := func(i int) string { e := entry(i); return e[:min(enc.fieldsWidth, len(e))] }
	same := func(i, j int) bool { return zs[i].Score == zs[j].Score && fieldsOf(i) == fieldsOf(j) }
	// The first row's group: where it starts, if the rows read show it.
	first := back
	for first > 0 && same(first-1, back) {
		first--
	}
	rank := pg.Offset - back + first + 1
	switch {
	case better >= 0:
		rank = better + 1
	case first == 0 && pg.Offset-back > 0 && b.RankStyle != board.Ordinal:
		return nil, false // a longer tie: view.lua counts it
	}
	ids = make([]string, 0, len(zs)-back)
	for i := back; i < len(zs); i++ {
		pos := pg.Offset + i - back
		switch {
		case b.RankStyle == board.Ordinal:
			rank = pos + 1
		case i > back && !same(i, i-1):
			rank = pos + 1
		}
		id, fields := enc.split(entry(i))
		pg.Entries = append(pg.Entries, board.Entry{Member: id, Name: id, Score: zs[i].Score, Fields: fields, Rank: rank, Position: pos, Key: entry(i)})
		ids = append(ids, id)
	}
	return ids, true
}

// nameRows gives pg's entries the display names HMGET read (nil: none).
func nameRows(pg *board.Page, names []any) {
	for i, n := range names {
		if name, _ := n.(string); name != "" && i < len(pg.Entries) {
			pg.Entries[i].Name = name
		}
	}
}

// leanAround reads the k rows above and below member with around.lua; ok
// is false when it cannot (view.lua must).
func (s reader) leanAround(ctx context.Context, b *board.Board, p board.Period, z, names, member string, k int) (pg board.Page, ok bool, err error) {
	if b.RankStyle == board.Dense || names != namesKey(b.ID) {
		return board.Page{}, false, nil
	}
	enc := encodingOf(b)
	desc := "0"
	if enc.desc {
		desc = "1"
	}
	// Competition ranks by score alone: one ZCOUNT ranks the first row.
	// With extra fields the tie group is found among rows read before.
	back, count := leanLookBack, "0"
	switch {
	case b.RankStyle == board.Ordinal:
		back = 0
	case enc.fieldsWidth == 0:
		back, count = 0, "1"
	}
	reply, err := scripts.around.call(3, 6).key("zset", z).key("entries", entriesKey(z)).key("names", names).
		arg("desc", desc).arg("prefix_width", enc.prefixWidth).arg("member", member).arg("k", k).arg("back", back).arg("count", count).
		run(ctx, s.rdb).Result()
	if err != nil {
		return board.Page{}, false, fmt.Errorf("board: around %s of %q: %w", p, b.ID, err)
	}
	arr, _ := reply.([]any)
	if len(arr) == 1 {
		return board.Page{}, true, fmt.Errorf("board: member %q is not on %s of %q: %w", member, p, b.ID, board.ErrNotFound)
	}
	if len(arr) != 7 {
		return board.Page{}, false, fmt.Errorf("board: around %s of %q: short reply", p, b.ID)
	}
	total, start, pos, from := toInt(arr[0]), toInt(arr[1]), toInt(arr[2]), toInt(arr[3])
	flat, _ := arr[4].([]any)
	zs := make([]redis.Z, 0, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		sc, _ := flat[i+1].(string)
		v, _ := strconv.ParseFloat(sc, 64)
		zs = append(zs, redis.Z{Member: flat[i], Score: v})
	}
	pg = board.Page{Period: p, Total: total, Offset: start, Matched: pos}
	if _, ok := leanRows(b, &pg, zs, start-from, toInt(arr[6])); !ok {
		return board.Page{}, false, nil
	}
	names2, _ := arr[5].([]any)
	nameRows(&pg, names2)
	return pg, true, nil
}

// leanStandings is standings with rank.lua: a board whose ties are by
// score alone and ranks not dense, read live (not a frozen copy).
func (s reader) leanStandings(ctx context.Context, b *board.Board, ps []board.Period, members []string) ([][]board.Standing, error) {
	enc := encodingOf(b)
	desc := "0"
	if enc.desc {
		desc = "1"
	}
	c := scripts.rank.call(1+2*len(ps), 2+len(members)).key("names", namesKey(b.ID)).arg("desc", desc).arg("prefix_width", enc.prefixWidth)
	for _, m := range members {
		c.arg("member", m)
	}
	for _, p := range ps {
		z := ZSetKey(b.ID, p)
		c.in("period").key("zset", z).key("entries", entriesKey(z))
	}
	reply, err := c.run(ctx, s.rdb).Result()
	if err != nil {
		return nil, fmt.Errorf("board: ranks in %q: %w", b.ID, err)
	}
	out, err := decodeStandings(b, ps, members, reply, func(row []any) int {
		if b.RankStyle == board.Ordinal {
			return toInt(row[2]) + 1 // its position
		}
		return toInt(row[1]) + 1 // one more than those strictly better
	})
	if err != nil {
		return nil, err
	}
	return s.standingsPast(ctx, b, ps, members, out, make([]bool, len(ps)))
}

// decodeStandings reads standing.lua's and rank.lua's reply: per period
// {total, then per member {score|false, r, pos, worse, name|false}}, where
// rank says what r makes of a member's rank.
func decodeStandings(b *board.Board, ps []board.Period, members []string, reply any, rank func(row []any) int) ([][]board.Standing, error) {
	periods, _ := reply.([]any)
	if len(periods) != len(ps) {
		return nil, fmt.Errorf("board: ranks in %q: reply has %d periods, want %d", b.ID, len(periods), len(ps))
	}
	out := make([][]board.Standing, len(ps))
	for i, raw := range periods {
		per, _ := raw.([]any)
		if len(per) != len(members)+1 {
			return nil, fmt.Errorf("board: ranks in %q: short reply", b.ID)
		}
		total := toInt(per[0])
		for j, m := range members {
			row, _ := per[j+1].([]any)
			st := board.Standing{Period: ps[i], Member: m, Total: total}
			if len(row) == 5 {
				st.Name, _ = row[4].(string)
				if sc, ok := row[0].(string); ok {
					st.Ranked = true
					st.Score, _ = strconv.ParseFloat(sc, 64)
					st.Rank, st.Position, st.Worse = rank(row), toInt(row[2]), toInt(row[3])
				}
			}
			if st.Name == "" {
				st.Name = m
			}
			out[i] = append(out[i], st)
		}
	}
	return out, nil
}
