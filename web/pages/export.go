package pages

import (
	"github.com/labstack/echo/v4"

	"podium/web/request"
)

// exportPeriod downloads a period of a board whole, as CSV or JSON.
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
	return request.Export(c, s.opts.Export, s.opts.Store, s.opts.Gate.Lens(c, &b), p, format, s.log)
}
