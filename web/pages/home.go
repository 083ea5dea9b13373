package pages

import (
	"net/url"

	"github.com/labstack/echo/v4"

	"podium/redisstore"
	"podium/web/request"
	"podium/web/templates"
)

// home lists every board with the top three of its default period.
func (s *Handler) home(c echo.Context) error {
	ctx := c.Request().Context()
	boards, err := s.opts.Store.Boards(ctx)
	if err != nil {
		return err
	}
	boards = s.opts.Gate.Listed(c, boards)
	now := s.opts.Store.Now()
	qs := make([]redisstore.ViewQuery, len(boards))
	for i := range boards {
		qs[i] = redisstore.ViewQuery{Board: &boards[i], Period: boards[i].Current(boards[i].DefaultPeriod, now), Limit: 3}
	}
	tops := s.opts.Store.ReadViews(ctx, qs) // one round trip for every board
	cards := make([]templates.Card, 0, len(boards))
	for i := range boards {
		b, p, top := &boards[i], qs[i].Period, tops[i]
		if top.Err != nil {
			return top.Err
		}
		cards = append(cards, templates.Card{
			Title:  b.Title,
			Href:   "/b/" + url.PathEscape(b.ID),
			Period: templates.TabLabel(p),
			Meta:   templates.BoardMeta(b),
			Rows:   tableOf(s.opts.Gate.Lens(c, b), top.Page.Entries, "", "").Rows,
		})
	}
	return request.Render(c, 200, templates.Page("Leaderboards", templates.Home(cards)))
}
