package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
)

// raceJSON is a period's race (getRace): its top's scores over time.
type raceJSON struct {
	Board       string         `json:"board"`
	FrozenSince *time.Time     `json:"frozen_since,omitempty"`
	Period      periodJSON     `json:"period"`
	Top         int            `json:"top"`
	Lines       []raceLineJSON `json:"lines"`
}

// raceLineJSON is one member of the top with the points of its line.
type raceLineJSON struct {
	Rank   int             `json:"rank"`
	Member string          `json:"member"`
	Name   string          `json:"name"`
	Score  json.Number     `json:"score"`
	Shown  string          `json:"score_text"`
	Points []racePointJSON `json:"points"`
}

// racePointJSON is a score a member of the top reached, and when.
type racePointJSON struct {
	At    time.Time   `json:"at"`
	Score json.Number `json:"score"`
	Shown string      `json:"score_text"`
}

// apiRace is a period's race: each member of its top (as the reader may
// see them) with the scores it reached while in the top, oldest first.
// Rolling windows keep none (404 no_race).
func (s *Handler) apiRace(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	p, err := s.apiPeriod(c, &b)
	if err != nil {
		return err
	}
	if p.Kind.Rolling() {
		return apiErr(404, "no_race", "rolling windows keep no race: ask for a day, week, month, year, the board's own period (custom) or all time")
	}
	ctx := c.Request().Context()
	pg, err := s.opts.Store.Page(ctx, &b, p, 0, board.RaceTop)
	if err != nil {
		return err
	}
	pts, err := s.opts.Store.Race(ctx, &b, p)
	if err != nil {
		return err
	}
	out := raceJSON{Board: b.ID, FrozenSince: s.frozenSince(&b), Period: toPeriodJSON(p), Top: board.RaceTop, Lines: []raceLineJSON{}}
	lines := s.opts.Gate.Lens(c, &b).Race(pg.Entries, pts)
	es := make([]board.Entry, len(lines))
	for i, l := range lines {
		es[i] = l.Entry
	}
	for i, r := range rows.Of(&b, es) {
		line := raceLineJSON{Rank: r.Rank, Member: r.Member, Name: r.Name, Score: json.Number(b.Format.Number(es[i].Score)), Shown: r.Score, Points: []racePointJSON{}}
		for _, pt := range lines[i].Points {
			line.Points = append(line.Points, racePointJSON{At: pt.At, Score: json.Number(b.Format.Number(pt.Score)), Shown: b.Format.Display(pt.Score)})
		}
		out.Lines = append(out.Lines, line)
	}
	return c.JSON(http.StatusOK, out)
}
