package redisstore

import (
	"context"
	"fmt"

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
	zs := rows.Val()
	pg = board.Page{Period: p, Total: int(total.Val()), Offset: offset, Matched: int(total.Val())}
	if len(zs) <= back {
		return pg, true, nil // past the end
	}
	entry := func(i int) string { e, _ := zs[i].Member.(string); return e }
	fieldsOf := func(i int) string { e := entry(i); return e[:min(enc.fieldsWidth, len(e))] }
	same := func(i, j int) bool { return zs[i].Score == zs[j].Score && fieldsOf(i) == fieldsOf(j) }
	// The first row's group: where it starts, if the rows read show it.
	first := back
	for first > 0 && same(first-1, back) {
		first--
	}
	if first == 0 && offset-back > 0 && b.RankStyle != board.Ordinal {
		return board.Page{}, false, nil // a longer tie: view.lua counts it
	}
	rank := offset - back + first + 1
	ids := make([]string, 0, len(zs)-back)
	for i := back; i < len(zs); i++ {
		pos := offset + i - back
		switch {
		case b.RankStyle == board.Ordinal:
			rank = pos + 1
		case i > back && !same(i, i-1):
			rank = pos + 1
		}
		id, fields := enc.split(entry(i))
		pg.Entries = append(pg.Entries, board.Entry{Member: id, Name: id, Score: zs[i].Score, Fields: fields, Rank: rank, Position: pos})
		ids = append(ids, id)
	}
	got, err := s.rdb.HMGet(ctx, names, ids...).Result()
	if err != nil {
		return board.Page{}, false, fmt.Errorf("board: names of %s of %q: %w", p, b.ID, err)
	}
	for i, n := range got {
		if name, _ := n.(string); name != "" {
			pg.Entries[i].Name = name
		}
	}
	return pg, true, nil
}
