package request

import (
	"context"
	"maps"
	"slices"

	"podium/board"
	"podium/rows"
)

// SegmentReader is what a member's standing within its segments reads.
type SegmentReader interface {
	SegmentsOf(ctx context.Context, b *board.Board, member string) (map[string]string, error)
	SegmentRanks(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, members []string) ([]board.Standing, error)
}

// SegmentRank is a member's rank within one of its segments in a period;
// Total counts the segment's members as the reader may be told (lens).
type SegmentRank struct {
	Segment     board.Segment
	Rank, Total int
}

// MemberSegments reads a member's values (none: nil, as on a board without
// segments) and, for each period of sts where it is ranked, its rank
// within each value, by attribute: what the API's member answer and the
// member page show.
func MemberSegments(ctx context.Context, st SegmentReader, b *board.Board, lens rows.Lens, member string, sts []board.Standing) (map[string]string, [][]SegmentRank, error) {
	if len(b.Segments) == 0 {
		return nil, nil, nil
	}
	vs, err := st.SegmentsOf(ctx, b, member)
	if err != nil || len(vs) == 0 {
		return nil, nil, err
	}
	ranks := make([][]SegmentRank, len(sts))
	for i, s := range sts {
		if !s.Ranked {
			continue
		}
		for _, a := range slices.Sorted(maps.Keys(vs)) {
			seg := board.Segment{Attr: a, Value: vs[a]}
			in, err := st.SegmentRanks(ctx, b, s.Period, seg, []string{member})
			if err != nil {
				return nil, nil, err
			}
			if in[0].Ranked {
				ranks[i] = append(ranks[i], SegmentRank{Segment: seg, Rank: in[0].Rank, Total: lens.Total(in[0].Total)})
			}
		}
	}
	return vs, ranks, nil
}
