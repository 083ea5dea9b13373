package archive

// Periods written straight into Redis: a game server's ZINCRBY on
// lb:{chess}:w:2026-W40 makes the period's zset and nothing else, so the
// board's periods set, where Due, Settle and Statuses look, does not list
// it. Each pass notes such keys there first, and from then on they are
// copied and expire like the app's own.

import (
	"context"
	"errors"

	"podium/board"
	"podium/redisstore"
)

const (
	// probeBack is how many closed periods of each kind a board enables
	// each pass looks for by name: one written straight into Redis is found
	// at the first pass after it closes, at the cost of a few EXISTS.
	probeBack = 8
	// scanBudget is about how many keys of each Redis primary each pass
	// looks at for older ones (a walk of the keyspace that goes on where the
	// previous pass stopped), so that a pass costs the same however many
	// keys Redis holds.
	scanBudget = 10_000
)

// Discover notes, in each board's periods set, the keys of the board's
// calendar periods that exist in Redis but that no write of the app noted,
// and returns how many it noted. It looks for the last closed periods of
// each kind by name, and walks the keyspace for the others: about budget
// keys per Redis primary, going on from where the last walk stopped, or
// all of it with budget <= 0 (web archive run and status).
func (a *Archiver) Discover(ctx context.Context, budget int) (int, error) {
	boards, err := a.Store.Boards(ctx)
	if err != nil {
		return 0, err
	}
	return a.discover(ctx, boards, budget)
}

func (a *Archiver) discover(ctx context.Context, boards []board.Board, budget int) (int, error) {
	found, err := a.Store.ScanPeriodKeys(ctx, &a.scan, budget)
	var errs []error
	if err != nil {
		errs = append(errs, err) // what was found before is noted all the same
	}
	now := a.Store.Now()
	total := 0
	for i := range boards {
		b := &boards[i]
		keys := found[b.ID]
		for _, p := range b.ClosedBefore(now, probeBack) {
			keys = append(keys, redisstore.ZSetKey(b.ID, p))
		}
		noted, again, err := a.Store.NotePeriods(ctx, b, keys, a.linger())
		if err != nil {
			errs = append(errs, err)
		}
		if noted > 0 {
			a.Log.Info("archive: found periods written straight into Redis; they are archived and expire like the others", "board", b.ID, "periods", noted)
		}
		if again > 0 {
			a.Log.Warn("archive: periods that had left Redis were written again from outside; the archive's copy is final, so they expire again",
				"board", b.ID, "periods", again)
		}
		total += noted
	}
	return total, errors.Join(errs...)
}
