package web

import (
	"net/url"

	"github.com/labstack/echo/v4"

	"podium/web/templates"
)

// home lists every board with the top three of its default period.
func (s *Server) home(c echo.Context) error {
	ctx := c.Request().Context()
	boards, err := s.opts.Store.Boards(ctx)
	if err != nil {
		return err
	}
	now := s.opts.Store.Now()
	cards := make([]templates.Card, 0, len(boards))
	for i := range boards {
		b := &boards[i]
		p := b.Current(b.DefaultPeriod, now)
		top, err := s.opts.Store.Page(ctx, b, p, 0, 3)
		if err != nil {
			return err
		}
		cards = append(cards, templates.Card{
			Title:  b.Title,
			Href:   "/b/" + url.PathEscape(b.ID),
			Period: templates.TabLabel(p.Kind),
			Meta:   boardMeta(b),
			Rows:   tableOf(b, top.Entries, "", "").Rows,
		})
	}
	return render(c, 200, templates.Page("Leaderboards", templates.Home(cards)))
}
