package redisstore

import (
	"context"
	"fmt"

	"podium/board"
)

// SegmentPage reads a page of segment seg's standing in period p: each
// entry's Rank is its rank among the segment's members (the board's ties
// and rank style), GlobalRank its rank on the whole period; Total counts
// the segment's members. One script call (lua/group.lua). A frozen board's
// public reads the standing as it stood at the freeze.
func (s segmentStore) SegmentPage(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, offset, limit int) (board.Page, error) {
	if err := board.CheckWindow(offset, limit); err != nil {
		return board.Page{}, err
	}
	if _, err := board.CheckSegment(b, seg.Attr, seg.Value); err != nil {
		return board.Page{}, err
	}
	return s.groupPage(ctx, b, p, seg, offset, limit)
}

// groupPage reads a page of group standing seg (a segment's or a league
// cohort's) of period p, as SegmentPage says.
func (s segmentStore) groupPage(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, offset, limit int) (board.Page, error) {
	since, err := s.publicFreeze(ctx, b)
	if err != nil {
		return board.Page{}, err
	}
	z, frozen := periodSource(b, p, since)
	reply, err := groupCall(b, z, seg, namesOf(b.ID, since), "page").in("page").arg("offset", offset).arg("limit", limit).run(ctx, s.rdb).Result()
	if err != nil {
		return board.Page{}, fmt.Errorf("board: segment %s of %s of %q: %w", seg, p, b.ID, err)
	}
	pg, held, err := decodeGroup(b, p, seg, reply)
	if err != nil {
		return board.Page{}, err
	}
	if held == 0 && frozen.IsZero() {
		if past, ok, err := s.pastSegmentPage(ctx, b, p, seg, offset, limit); err != nil || ok {
			return past, err
		}
	}
	return pg, nil
}

// decodeGroup reads group.lua's page reply; held is how many entries the
// whole period holds (none: a closed period may have gone to the archive).
func decodeGroup(b *board.Board, p board.Period, seg board.Segment, reply any) (pg board.Page, held int, err error) {
	arr, _ := reply.([]any)
	if len(arr) < 3 {
		return board.Page{}, 0, fmt.Errorf("board: segment %s of %s of %q: short reply", seg, p, b.ID)
	}
	pg = board.Page{Period: p, Total: toInt(arr[0]), Offset: toInt(arr[2]), Segment: seg}
	pg.Matched = pg.Total
	enc := encodingOf(b)
	for i := 3; i+5 < len(arr); i += 6 {
		e := entryOf(enc, arr[i], arr[i+1], arr[i+3])
		e.Rank, e.Position, e.GlobalRank, e.GlobalPosition = toInt(arr[i+2]), pg.Offset+len(pg.Entries), toInt(arr[i+4]), toInt(arr[i+5])
		pg.Entries = append(pg.Entries, e)
	}
	return pg, toInt(arr[1]), nil
}

// SegmentRanks is the standing of each listed member within segment seg in
// period p, in the order given; a member not in the segment (or without a
// score) comes back unranked. Total counts the segment's members.
func (s segmentStore) SegmentRanks(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, members []string) ([]board.Standing, error) {
	if len(members) > board.MaxRankMembers {
		return nil, board.NewFieldError(board.ErrInvalidInput, "members", "at most %d at once", board.MaxRankMembers)
	}
	if _, err := board.CheckSegment(b, seg.Attr, seg.Value); err != nil {
		return nil, err
	}
	return s.groupRanks(ctx, b, p, seg, members)
}

// groupRanks reads members' standings in group standing seg of period p,
// as SegmentRanks says.
func (s segmentStore) groupRanks(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, members []string) ([]board.Standing, error) {
	since, err := s.publicFreeze(ctx, b)
	if err != nil {
		return nil, err
	}
	z, frozen := periodSource(b, p, since)
	c := groupCall(b, z, seg, namesOf(b.ID, since), "ranks").in("ranks")
	for _, m := range members {
		c.arg("member", m)
	}
	reply, err := c.run(ctx, s.rdb).Result()
	if err != nil {
		return nil, fmt.Errorf("board: ranks in segment %s of %s of %q: %w", seg, p, b.ID, err)
	}
	arr, _ := reply.([]any)
	if len(arr) != len(members)+1 {
		return nil, fmt.Errorf("board: ranks in segment %s of %s of %q: %d answers for %d members", seg, p, b.ID, len(arr)-1, len(members))
	}
	total := toInt(arr[0])
	if total == 0 && frozen.IsZero() {
		if out, ok, err := s.pastSegmentRanks(ctx, b, p, seg, members); err != nil || ok {
			return out, err
		}
	}
	out := make([]board.Standing, len(members))
	for i, m := range members {
		out[i] = board.Standing{Period: p, Member: m, Total: total}
		row, ok := arr[i+1].([]any)
		if !ok || len(row) < 4 {
			continue
		}
		e := entryOf(encodingOf(b), m, row[0], nil)
		out[i].Ranked, out[i].Score = true, e.Score
		out[i].Rank, out[i].Position, out[i].Worse = toInt(row[1]), toInt(row[2]), toInt(row[3])
	}
	return out, nil
}

// groupCall is group.lua's call reading segment seg of period zset z.
func groupCall(b *board.Board, z string, seg board.Segment, names, mode string) *luaCall {
	g, gd, _ := groupKeys(z, seg)
	return scripts.group.call(6, 8).key("group", g).key("group_distinct", gd).key("zset", z).key("entries", entriesKey(z)).
		key("distinct", distinctKey(z)).key("names", names).encoding(b).arg("mode", mode)
}

// SegmentAround is member's neighbourhood within segment seg in period p:
// k rows above and below it in the segment (the window slides to stay
// full near either end, as Around's does), each row's Rank within the
// segment and GlobalRank on the period, and the member's position in the
// segment. ErrNotFound when the member has no score in the segment.
func (s segmentStore) SegmentAround(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, member string, k int) (board.Page, int, error) {
	if err := board.CheckMember(member); err != nil {
		return board.Page{}, 0, err
	}
	if k < 0 || k > board.MaxAround {
		return board.Page{}, 0, board.NewFieldError(board.ErrInvalidInput, "radius", "must be from 0 to %d", board.MaxAround)
	}
	sts, err := s.SegmentRanks(ctx, b, p, seg, []string{member})
	if err != nil {
		return board.Page{}, 0, err
	}
	st := sts[0]
	if !st.Ranked {
		return board.Page{}, 0, fmt.Errorf("%q has no score in segment %s of %s: %w", member, seg, p, board.ErrNotFound)
	}
	start := max(0, min(st.Position-k, st.Total-1-2*k))
	pg, err := s.SegmentPage(ctx, b, p, seg, start, 2*k+1)
	if err != nil {
		return board.Page{}, 0, err
	}
	// The segment may have changed between the two reads: the member's
	// position is the one its row shows, when the window still holds it.
	pos := st.Position
	for _, e := range pg.Entries {
		if e.Member == member {
			pos = e.Position
		}
	}
	return pg, pos, nil
}
