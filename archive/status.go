package archive

import (
	"context"
	"slices"
	"time"

	"podium/board"
)

// Status is one period's archiving, for operators.
type Status struct {
	Board    string
	Period   board.Period
	State    string // "in progress", "pending", "archived once, ...", "archived", "expiring", "archive only", ...
	Copy     bool   // a copy is to be made: never made, made once, or changed since
	InRedis  int    // members Redis holds
	Archived int    // rows the archive holds
}

// Statuses lists every period but all time that Redis or the archive holds,
// of every board, by board and newest first.
func (a *Archiver) Statuses(ctx context.Context) ([]Status, error) {
	boards, err := a.Store.Boards(ctx)
	if err != nil {
		return nil, err
	}
	now := a.Store.Now()
	var out []Status
	for i := range boards {
		b := &boards[i]
		raw, err := a.rawStates(ctx, b)
		if err != nil {
			return nil, err
		}
		ps, err := a.Store.StoredPeriods(ctx, b)
		if err != nil {
			return nil, err
		}
		held, err := a.DB.Periods(ctx, b.ID)
		if err != nil {
			return nil, err
		}
		seen, inArchive := map[string]bool{}, map[string]bool{}
		for _, p := range ps {
			seen[p.String()] = true
		}
		for _, h := range held {
			inArchive[h.Period] = true
			kind, key, ok := cutPeriod(h.Period)
			if p, err := b.PeriodOf(kind, key); ok && err == nil && !seen[h.Period] {
				seen[h.Period] = true
				ps = append(ps, p)
			}
		}
		slices.SortFunc(ps, func(x, y board.Period) int { return y.End.Compare(x.End) })
		for _, p := range ps {
			if !p.Kind.Calendar() {
				continue
			}
			st := Status{Board: b.ID, Period: p}
			if st.InRedis, err = a.Store.Count(ctx, b, p); err != nil {
				return nil, err
			}
			if st.Archived, err = a.DB.Count(ctx, b.ID, p.String()); err != nil {
				return nil, err
			}
			state, has := raw[p.String()]
			switch {
			case now.Before(p.End):
				st.State = "in progress"
			case expired(state) && !inArchive[p.String()]:
				st.State = "expired from Redis and missing from the archive"
			case expired(state) && st.InRedis > 0:
				st.State = "archived, expiring from Redis"
			case expired(state):
				st.State = "archived, only in the archive"
			case !has && inArchive[p.String()] && st.InRedis == 0:
				st.State = "only in the archive"
			case !has || !inArchive[p.String()]:
				st.State, st.Copy = "pending", true
			case passOf(state) >= PassFinal:
				st.State = "archived"
			case passOf(state) == PassFirst:
				st.State, st.Copy = "archived once, final pass after "+p.End.Add(a.grace()).Format(time.RFC3339), true
			default:
				st.State, st.Copy = "changed since archived, copied again at the next pass", true
			}
			out = append(out, st)
		}
	}
	return out, nil
}
