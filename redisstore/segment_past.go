package redisstore

// Segment standings of closed periods whose keys have expired: the archive
// holds each period's segments beside its members (Past.SegmentHeld,
// SegmentRows, SegmentFind, SegmentGroupEnd), with the ranks within each
// segment that Redis gave. A period the archive holds without its segments
// (archived before the archive kept them, while its board had the
// attribute) is ErrGone: its segment standings are lost, not empty. League
// cohorts are segments of the pseudo-attribute LeagueAttr here, archived
// likewise (a period of the league's kind archived before the archive kept
// them is ErrGone too).

import (
	"context"
	"fmt"

	"podium/board"
)

// pastSegment is how many members segment seg held in an expired period,
// from the archive; ok is false when Redis is where p lives (or lived: an
// empty closed period).
func (s segmentStore) pastSegment(ctx context.Context, b *board.Board, p board.Period, seg board.Segment) (int, bool, error) {
	_, past, err := s.pastTotal(ctx, b, p)
	if err != nil || !past {
		return 0, false, err
	}
	n, held, err := s.past.SegmentHeld(ctx, b.ID, p.String(), seg)
	if err != nil {
		return 0, false, err
	}
	if !held {
		what := "segments"
		if seg.Attr == LeagueAttr {
			what = "league cohorts"
		}
		return 0, false, fmt.Errorf("board: %s of %q was archived before the archive kept %s, "+
			"and has left Redis: its standing of %s is gone: %w", p, b.ID, what, seg, board.ErrGone)
	}
	return n, true, nil
}

// pastSegmentPage is SegmentPage of an expired period, from the archive.
func (s segmentStore) pastSegmentPage(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, offset, limit int) (board.Page, bool, error) {
	n, ok, err := s.pastSegment(ctx, b, p, seg)
	if err != nil || !ok {
		return board.Page{}, ok, err
	}
	pg := board.Page{Period: p, Total: n, Offset: offset, Matched: n, Segment: seg}
	if offset < n {
		if pg.Entries, err = s.past.SegmentRows(ctx, b.ID, p.String(), seg, offset, limit); err != nil {
			return board.Page{}, false, err
		}
	}
	return pg, true, nil
}

// pastSegmentRanks is SegmentRanks of an expired period, from the archive.
func (s segmentStore) pastSegmentRanks(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, members []string) ([]board.Standing, bool, error) {
	n, ok, err := s.pastSegment(ctx, b, p, seg)
	if err != nil || !ok {
		return nil, ok, err
	}
	found, err := s.past.SegmentFind(ctx, b.ID, p.String(), seg, members)
	if err != nil {
		return nil, false, err
	}
	out := make([]board.Standing, len(members))
	for i, m := range members {
		out[i] = board.Standing{Period: p, Member: m, Total: n}
		e, ok := found[m]
		if !ok {
			continue
		}
		end, err := s.past.SegmentGroupEnd(ctx, b.ID, p.String(), seg, e)
		if err != nil {
			return nil, false, err
		}
		out[i].Ranked, out[i].Score, out[i].Rank, out[i].Position, out[i].Worse = true, e.Score, e.Rank, e.Position, n-1-end
	}
	return out, true, nil
}
