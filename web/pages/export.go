package pages

import (
	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/web/request"
)

// exportPeriod downloads a period of a board whole, or one segment of it
// (?segment=country:NO), as CSV or JSON.
func (s *Handler) exportPeriod(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	p, _, err := s.periodOf(c, &b)
	if err != nil {
		return err
	}
	format, err := request.ExportFormat(c)
	if err != nil {
		return err
	}
	seg, err := board.ParseSegment(&b, c.QueryParam("segment"))
	if err != nil {
		return request.BadRequest(err.Error())
	}
	return request.Export(c, s.opts.Export, s.opts.Store, s.opts.Gate.Lens(c, &b), p, seg, format, s.log)
}
