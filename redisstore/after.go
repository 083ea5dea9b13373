package redisstore

import (
	"context"
	"math"
	"strconv"

	"podium/board"
)

// PageAfter reads up to limit entries that come after mark m in a
// period's order (board.Mark), with ranks in the board's style and the
// total, as Page reads them: one script call (view.lua's after mode), so
// the mark is placed and the rows read in one moment. Page.Offset is the
// first row's position. An expired period is read from the archive, where
// rows no longer move.
func (s reader) PageAfter(ctx context.Context, b *board.Board, p board.Period, m board.Mark, limit int) (board.Page, error) {
	if err := board.CheckWindow(0, limit); err != nil {
		return board.Page{}, err
	}
	if math.IsNaN(m.Score) || m.Position < -1 {
		return board.Page{}, board.NewFieldError(board.ErrInvalidInput, "after", "is not a place in the board's order")
	}
	return s.view(ctx, b, p, "after", redisScore(m.Score), m.Key, m.Position, limit)
}

// redisScore writes a score as Redis reads it, infinities included.
func redisScore(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// pastAfter is PageAfter of an expired period, from the archive: its
// rows keep their positions (an erasure renames a member in place), so a
// mark made there is its position, and the page a range of the position
// index (keyset pagination). A mark made while the period was in Redis
// (its entry) is placed by its member's archived row when the archive
// holds it with the mark's score: the same place. Else its row left or
// moved before the period closed, and the mark is placed by its position
// (the rows after it moved up one place, unless it moved up past them),
// kept among the rows of its score: where a walk spans the period's move
// to the archive, a row tied with the marked one may come again or be
// missed, once.
func (s reader) pastAfter(ctx context.Context, b *board.Board, p board.Period, score float64, key string, pos, limit int) (int, []board.Entry, error) {
	id, period := b.ID, p.String()
	from := pos + 1
	if key != "" {
		higher := b.Order == board.HigherIsBetter
		member, _ := encodingOf(b).split(key)
		found, err := s.past.Find(ctx, id, period, []string{member})
		if err != nil {
			return 0, nil, err
		}
		e, ok := found[member]
		if !ok || e.Score != score {
			if !ok || (e.Score > score) != higher {
				from = pos // it left, or went down past the rows after it
			}
			_, tied, above, err := s.past.Range(ctx, id, period, score, score, higher, 0, 0)
			if err != nil {
				return 0, nil, err
			}
			from = min(max(from, above), above+tied)
		} else {
			from = e.Position + 1
		}
	}
	rows, err := s.past.Rows(ctx, id, period, from, limit)
	return from, rows, err
}
