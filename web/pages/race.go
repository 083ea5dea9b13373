package pages

// The race page: a period's top over time (redisstore/race.go), drawn on the
// server as SVG with a table of every point, and the top's standings live;
// race.js fetches the chart again (raceChart) when they change.

import (
	"context"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
	"podium/web/templates"
)

func raceURL(id string, p board.Period, current bool) string {
	return "/b/" + url.PathEscape(id) + "/race?" + periodValues(p, current).Encode()
}

func raceChartURL(id string, p board.Period, current bool) string {
	return "/b/" + url.PathEscape(id) + "/race/chart?" + periodValues(p, current).Encode()
}

// raceBoard reads the board and period a race route names; rolling
// windows keep no race (a 404 that says so).
func (s *Handler) raceBoard(c echo.Context) (board.Board, board.Period, bool, error) {
	b, err := s.loadBoard(c)
	if err != nil {
		return b, board.Period{}, false, err
	}
	p, current, err := s.periodOf(c, &b)
	if err != nil {
		return b, p, current, err
	}
	if p.Kind.Rolling() {
		return b, p, current, request.NotFound("No race in a rolling window", templates.TabLabel(p)+" keeps no history of its top: pick another period, or all time.",
			templates.Link{Label: "The race of " + b.Title, Href: raceURL(b.ID, b.Current(board.AllTime, s.opts.Store.Now()), true)})
	}
	return b, p, current, nil
}

// racePage is a period's race, live.
func (s *Handler) racePage(c echo.Context) error {
	b, p, current, err := s.raceBoard(c)
	if err != nil {
		return err
	}
	chart, table, err := s.race(c, &b, p)
	if err != nil {
		return err
	}
	now := s.opts.Store.Now()
	v := templates.RaceView{
		Title: b.Title, BoardHref: boardURL(b.ID, p, current, 1, 0, ""), PeriodTitle: p.Title(),
		Table: table, Chart: chart, ChartSrc: raceChartURL(b.ID, p, current), Top: board.RaceTop,
		Live: templates.LiveInfo{Period: string(p.Kind), MemberHref: "/b/" + url.PathEscape(b.ID) + "/m/",
			Frozen: rows.FrozenNotice(&b, now, false)},
	}
	if !current {
		v.Live.Key = p.Key
		v.Live.Closed = p.Ended(now)
	}
	if s.opts.Live != nil {
		v.Live.Query = liveQuery(b.ID, p, current, url.Values{"offset": {"0"}, "limit": {strconv.Itoa(board.RaceTop)}})
	}
	for _, k := range b.Periods {
		if !k.Rolling() {
			v.Tabs = append(v.Tabs, templates.Link{Label: templates.TabLabel(b.Current(k, now)), Href: raceURL(b.ID, b.Current(k, now), true), Current: k == p.Kind})
		}
	}
	v.Prev, v.Next = s.neighbours(&b, p, func(x board.Period, cur bool) string { return raceURL(b.ID, x, cur) })
	return request.Render(c, 200, templates.Page("The race · "+b.Title, templates.RacePage(v)))
}

// raceChart is the chart alone, an HTML fragment race.js puts in place.
func (s *Handler) raceChart(c echo.Context) error {
	b, p, _, err := s.raceBoard(c)
	if err != nil {
		return err
	}
	chart, _, err := s.race(c, &b, p)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return request.Render(c, 200, templates.RaceChartPart(chart))
}

// race reads period p's top and its race and draws them as the reader may
// see them: the members the privacy mode shows, named as it names them.
// A frozen board's public reads the top and the race of the freeze.
func (s *Handler) race(c echo.Context, b *board.Board, p board.Period) (templates.RaceChart, templates.Table, error) {
	ctx := c.Request().Context()
	pg, pts, err := s.raceReads(ctx, b, p)
	if err != nil {
		return templates.RaceChart{}, templates.Table{}, err
	}
	lens := s.opts.Gate.Lens(c, b)
	var lines []templates.RaceLine
	for _, rl := range lens.Race(pg.Entries, pts) {
		e := rl.Entry
		l := templates.RaceLine{Name: e.Name, Rank: e.Rank, Score: b.Format.Display(e.Score)}
		if l.Name == "" {
			l.Name = e.Member
		}
		if !e.Masked && lens.Opens(e.Member) {
			l.Href = memberURL(b.ID, e.Member)
		}
		for _, pt := range rl.Points {
			l.Points = append(l.Points, templates.RacePoint{At: pt.At, Value: pt.Score, Score: b.Format.Display(pt.Score)})
		}
		lines = append(lines, l)
	}
	now := s.opts.Store.Now()
	from, to := now, now
	if p.Kind.Calendar() {
		from = p.Start
	}
	if p.Ended(now) {
		to = p.End
	}
	stopped := false
	if since, frozen := b.FrozenSince(now); frozen && !p.Ended(since) {
		to, stopped = since, true
	}
	label := "Scores of the top of " + b.Title + " over " + p.Title()
	chart := templates.DrawRace(label, lines, from, to, b.Order != board.LowerIsBetter, b.Format.Display, b.Location())
	if stopped {
		chart.Note = "The standings are frozen: the chart stops at the freeze until the reveal."
	}
	table := lens
	table.Sight.Me = ""
	return chart, tableOf(table, pg.Entries, "", "The top of "+b.Title+", "+p.Title()), nil
}

// raceReads is the top and the race of p, as the store gives them.
func (s *Handler) raceReads(ctx context.Context, b *board.Board, p board.Period) (board.Page, []board.RacePoint, error) {
	pg, err := s.opts.Store.Page(ctx, b, p, 0, board.RaceTop)
	if err != nil {
		return pg, nil, err
	}
	pts, err := s.opts.Store.Race(ctx, b, p)
	return pg, pts, err
}
