package archive

// Leagues (board/league.go, redisstore/league_close.go). A period of a
// board's league kind is closed, promotions and relegations applied, by the
// first pass that copies it, before the copy: the store's close happens once
// whichever replica runs it, and each pass over the period (the final one
// too) copies its saved result to the archive.

import (
	"context"
	"fmt"

	"podium/board"
)

// closeLeague closes period p's league on board b if b runs one on p's
// kind; a close that waits for earlier periods fails the pass (the next
// pass tries again).
func (a *Archiver) closeLeague(ctx context.Context, b *board.Board, p board.Period) error {
	if b.League == nil || b.League.Kind != p.Kind {
		return nil
	}
	closed, err := a.Store.CloseLeague(ctx, b, p)
	if err != nil {
		return fmt.Errorf("archive: the league close of %s of %q: %w", p, b.ID, err)
	}
	if closed {
		a.Log.Info("league closed", "board", b.ID, "period", p.String())
	}
	return nil
}
