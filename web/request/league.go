package request

import (
	"fmt"
	"net/url"
	"time"

	"podium/board"
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
