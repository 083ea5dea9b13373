package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"podium/board"
	"podium/redisstore"
)

// leagueRows gives an export's entries of a period of the board's league's
// kind their league (Entry.League): the place and rank in the cohort from
// the snapshot's values (Redis) or the archived cohort standings, the
// close's results from the archive once it has run.
type leagueRows struct {
	r       *Reader
	b       *board.Board
	p       board.Period
	closed  bool
	rankers map[string]*board.ListRanker // per cohort, for rows from Redis
}

// leagueRowsOf is nil unless p is of the board's league's kind. An
// export of a freeze's copy (frozen) leaves out the close's results: a
// period that ended during the freeze was closed from the live standings,
// which its moves would give away before the reveal.
func (r *Reader) leagueRowsOf(ctx context.Context, b *board.Board, p board.Period, frozen bool) (*leagueRows, error) {
	if b.League == nil || b.League.Kind != p.Kind {
		return nil, nil
	}
	lr := &leagueRows{r: r, b: b, p: p, rankers: map[string]*board.ListRanker{}}
	if r.DB != nil && !frozen {
		var one int
		err := r.DB.sql.QueryRowContext(ctx, r.DB.q(`SELECT 1 FROM archive_league_results WHERE board = ? AND period = ? LIMIT 1`), b.ID, p.String()).Scan(&one)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("archive: league results of %s of %q: %w", p, b.ID, err)
		}
		lr.closed = err == nil
	}
	return lr, nil
}

// place gives e its place "<tier>/<cohort>" and its rank there.
func (lr *leagueRows) place(e *board.Entry, place string, rank int) {
	e.League = &board.LeagueRow{Closed: lr.closed}
	if t, c, ok := parsePlace(place); ok {
		e.League.Tier, e.League.Cohort, e.League.Rank = t, c, rank
	}
}

// fromValues takes the places out of a page of the snapshot's entries
// (their values of redisstore.LeagueAttr, handed over in board order) and
// ranks each within its cohort as the archive's copy ranks it.
func (lr *leagueRows) fromValues(es []board.Entry) {
	for i := range es {
		e := &es[i]
		place, ok := e.Segments[redisstore.LeagueAttr]
		if !ok {
			lr.place(e, "", 0)
			continue
		}
		delete(e.Segments, redisstore.LeagueAttr)
		if len(e.Segments) == 0 {
			e.Segments = nil
		}
		rk := lr.rankers[place]
		if rk == nil {
			rk = &board.ListRanker{Style: lr.b.RankStyle}
			lr.rankers[place] = rk
		}
		lr.place(e, place, rk.Next(e.Rank))
	}
}

// finish adds the close's results to a page, and the tier of each member
// without a place or a result (its tier now, as LeagueOf says).
func (lr *leagueRows) finish(ctx context.Context, es []board.Entry) error {
	var results map[string]board.LeagueResult
	if lr.closed {
		ids := make([]string, len(es))
		for i, e := range es {
			ids[i] = e.Member
		}
		var err error
		if results, err = lr.r.DB.Past().LeagueResultsOf(ctx, lr.b.ID, lr.p.String(), ids); err != nil {
			return err
		}
	}
	var unplaced []int
	for i := range es {
		e := &es[i]
		if e.League == nil {
			lr.place(e, "", 0)
		}
		if res, ok := results[e.Member]; ok {
			e.League.Result = &res
			if e.League.Cohort == 0 {
				e.League.Tier, e.League.Cohort = res.Tier, res.Cohort
			}
			continue
		}
		if e.League.Cohort == 0 {
			unplaced = append(unplaced, i)
		}
	}
	if len(unplaced) == 0 {
		return nil
	}
	ids := make([]string, len(unplaced))
	for j, i := range unplaced {
		ids[j] = es[i].Member
	}
	tiers, err := lr.r.Store.TiersOf(ctx, lr.b, ids)
	if err != nil {
		return err
	}
	for j, i := range unplaced {
		es[i].League.Tier = tiers[j]
	}
	return nil
}
