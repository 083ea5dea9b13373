package request

import (
	"context"
	"errors"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
)

// Guard is what keeps a long-lived answer (a live socket) honest: called
// again while it runs, it returns an error once the request may no longer
// read the board (a revoked or expired link, a board made private, deleted
// or made again), or once its sight no longer keeps what the answer shows
// (keeps; nil for anything: a personal link revoked on a public board still
// reads the board, but no longer as its member). The credentials are the
// ones the request brought, and opened is the board as Gate.Board gave it
// to the request.
func (g *Gate) Guard(c echo.Context, opened *board.Board, keeps func(*board.Board, rows.Sight) bool) func(ctx context.Context) error {
	cr, id, created := credentialsOf(c, opened.ID), opened.ID, opened.Created
	return func(ctx context.Context) error {
		b, err := g.Store.Board(ctx, id)
		if err != nil {
			if errors.Is(err, board.ErrNotFound) {
				return ErrNoLongerReadable
			}
			return nil // a store that cannot answer now is no reason to drop a viewer
		}
		if !b.Created.Equal(created) {
			return ErrNoLongerReadable
		}
		ok, err := g.readable(ctx, id, b, cr)
		if err == nil && !ok {
			return ErrNoLongerReadable
		}
		if err == nil && keeps != nil {
			if s, err := g.sight(ctx, id, b, cr); err == nil && !keeps(&b, s) {
				return ErrNoLongerReadable
			}
		}
		return nil
	}
}

// ErrNoLongerReadable ends a live answer whose board the request may no
// longer read.
var ErrNoLongerReadable = errors.New("this board is no longer readable with the access this page was opened with")
