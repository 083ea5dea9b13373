package request

import (
	"context"

	"podium/board"
	"podium/rows"
)

// Ranker is the store's read of listed members' standings in a period.
type Ranker interface {
	Ranks(ctx context.Context, b *board.Board, p board.Period, members []string) ([]board.Standing, error)
	Total(ctx context.Context, b *board.Board, p board.Period) (int, error)
}

// ReadAmong is the standings of the listed members in period p, each with
// its rank within the list (board.Among), as the reader may see them. A
// member the lens does not open (another member of a board with a privacy
// mode) comes back unranked, as a member without a score does: the two
// must not differ, so such members are not even read. The total is what
// the lens tells of the period's size.
func ReadAmong(ctx context.Context, r Ranker, lens rows.Lens, p board.Period, members []string) ([]board.Listed, int, error) {
	open := make([]string, 0, len(members))
	for _, m := range members {
		if lens.Opens(m) {
			open = append(open, m)
		}
	}
	read := map[string]board.Standing{}
	total := 0
	if len(open) > 0 {
		sts, err := r.Ranks(ctx, lens.Board, p, open)
		if err != nil {
			return nil, 0, err
		}
		for _, st := range sts {
			read[st.Member], total = st, st.Total
		}
	} else if lens.Counts() {
		var err error
		if total, err = r.Total(ctx, lens.Board, p); err != nil {
			return nil, 0, err
		}
	}
	sts := make([]board.Standing, len(members))
	for i, m := range members {
		st, ok := read[m]
		if !ok {
			st = board.Standing{Period: p, Member: m, Name: m, Total: total}
		}
		sts[i] = st
	}
	return board.Among(lens.Board, sts), lens.Total(total), nil
}
