package redisstore

import (
	"context"

	"podium/board"
)

// listView answers a view of listed members (ViewQuery.Members: the live
// compare and friends pages): their standings in one period, ranked among
// themselves (board.AmongEntries). It is one standings read of its own,
// not part of the views' pipelined script calls.
func (s reader) listView(ctx context.Context, q ViewQuery) ViewResult {
	sts, err := s.Ranks(queryCtx(ctx, q), q.Board, q.Period, q.Members)
	if err != nil {
		return ViewResult{Err: err}
	}
	pg := board.Page{Period: q.Period, Entries: board.AmongEntries(board.Among(q.Board, sts))}
	if len(sts) > 0 {
		pg.Total = sts[0].Total
	}
	return ViewResult{Page: pg}
}
