package web

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/web/templates"
)

// param is a path parameter, unescaped ("a%20b" -> "a b").
func param(c echo.Context, name string) string {
	v := c.Param(name)
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// loadBoard reads the board named in the path, or a 404 page naming it.
func (s *Server) loadBoard(c echo.Context) (board.Board, error) {
	id := param(c, "board")
	b, err := s.opts.Store.Board(c.Request().Context(), id)
	if errors.Is(err, board.ErrNotFound) {
		return b, notFound("Board not found", fmt.Sprintf("There is no board called “%s”.", id), homeLink)
	}
	return b, err
}

// periodOf reads ?period= and ?at= for a board, or a 404 page that says
// what was wrong and links to the board's current period.
func (s *Server) periodOf(c echo.Context, b *board.Board) (p board.Period, current bool, err error) {
	kind, at := c.QueryParam("period"), c.QueryParam("at")
	now := s.opts.Store.Now()
	p, err = b.ParsePeriod(kind, at, now)
	back := templates.Link{Label: "Back to " + b.Title, Href: "/b/" + url.PathEscape(b.ID)}
	switch {
	case errors.Is(err, board.ErrPeriodDisabled):
		return p, false, notFound("Period not found", fmt.Sprintf("%s has no “%s” period. It keeps: %s.", b.Title, kind, kindsOf(b)), back, homeLink)
	case errors.Is(err, board.ErrInvalidPeriod):
		return p, false, notFound("Period not found", fmt.Sprintf("%s has no such period: %s.", b.Title, reason(err)), back, homeLink)
	case err != nil:
		return p, false, err
	}
	cur := b.Current(p.Kind, now)
	return p, cur.Key == p.Key, nil
}

func kindsOf(b *board.Board) string {
	s := ""
	for i, k := range b.Periods {
		if i > 0 {
			s += ", "
		}
		s += string(k)
	}
	return s
}

// reason is the end of a board error: what exactly was wrong.
func reason(err error) string {
	msg := err.Error()
	if _, rest, ok := strings.Cut(msg, ": "); ok {
		return rest
	}
	return msg
}

// tabs links every enabled period kind in its current period.
func tabs(b *board.Board, active board.Kind, s *Server, link func(p board.Period) string) []templates.Link {
	now := s.opts.Store.Now()
	out := make([]templates.Link, 0, len(b.Periods))
	for _, k := range b.Periods {
		out = append(out, templates.Link{Label: templates.TabLabel(k), Href: link(b.Current(k, now)), Current: k == active})
	}
	return out
}
