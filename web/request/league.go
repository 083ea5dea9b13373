package request

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"podium/board"
	"podium/rows"
	"podium/web/templates"
)

// NoLeague is the answer about the league of a board that runs none: a
// 404 that names the board (the API's code "no_league").
func NoLeague(b *board.Board) *Problem {
	p := NotFound("No league", fmt.Sprintf("%s runs no league: its members rank on the whole board only.", b.Title),
		templates.Link{Label: "Back to " + b.Title, Href: "/b/" + url.PathEscape(b.ID)})
	p.Code = "no_league"
	return p
}

// LeaguePeriod reads the period of a board's league a request names: the
// league's kind unless kind names one, the current period unless at names
// a key. A board without a league is NoLeague; a period of a kind the
// board keeps but the league does not run on is a 400 on "period".
func LeaguePeriod(b *board.Board, kind, at string, now time.Time) (p board.Period, current bool, err error) {
	if b.League == nil {
		return p, false, NoLeague(b)
	}
	if kind == "" {
		kind = string(b.League.Kind)
	}
	if p, current, err = Period(b, kind, at, now); err != nil {
		return p, current, err
	}
	if p.Kind != b.League.Kind {
		pr := BadRequest(fmt.Sprintf("period=%s: the league of %s runs on %s periods only", p.Kind, b.Title, b.League.Kind),
			templates.Link{Label: "The league", Href: "/b/" + url.PathEscape(b.ID) + "/leagues"})
		pr.Code, pr.Field = "bad_parameter", "period"
		return p, current, pr
	}
	return p, current, nil
}

// CohortsReader is what ShownTiers reads of the board engine
// (redisstore/league.go).
type CohortsReader interface {
	TopCohorts(ctx context.Context, b *board.Board, p board.Period, n int, also ...string) (map[string]bool, error)
}

// ShownTiers is a league's tiers in period p as a reader sees them through
// lens: every cohort where the reader is told counts; where only the top
// is shown, the cohorts holding a member of the top, and the reader's own
// member's (a personal link's), since how many cohorts a tier has would
// tell how many members it holds.
func ShownTiers(ctx context.Context, st CohortsReader, lens rows.Lens, p board.Period, tiers []board.LeagueTier) ([]board.LeagueTier, error) {
	if lens.Counts() {
		return tiers, nil
	}
	var also []string
	if lens.Sight.Me != "" {
		also = append(also, lens.Sight.Me)
	}
	shown, err := st.TopCohorts(ctx, lens.Board, p, lens.Board.TopOnly, also...)
	if err != nil {
		return nil, err
	}
	out := make([]board.LeagueTier, len(tiers))
	for i, t := range tiers {
		out[i] = board.LeagueTier{Tier: t.Tier, Name: t.Name}
		for _, c := range t.Cohorts {
			if shown[board.CohortSegment(c.Tier, c.Cohort).Value] {
				out[i].Cohorts = append(out[i].Cohorts, c)
			}
		}
	}
	return out, nil
}
