package redisstore

import (
	"context"
	"sync"

	"podium/board"
)

// listReaders is how many list views ReadViews reads at once: each is a
// round trip of its own (listView), and one after another a client's
// hundred sockets, each a list of its own, would hold up the hub's tick
// for every board by a hundred round trips.
const listReaders = 8

// readLists starts reading the list views of qs into out, at most
// listReaders at once, beside the pipeline of the other views; the caller
// waits for them.
func (s reader) readLists(ctx context.Context, qs []ViewQuery, out []ViewResult) *sync.WaitGroup {
	var wg sync.WaitGroup
	var slots chan struct{}
	for i, q := range qs {
		if len(q.Members) == 0 {
			continue
		}
		if slots == nil {
			slots = make(chan struct{}, listReaders)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			out[i] = s.listView(ctx, q)
		}()
	}
	return &wg
}

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
