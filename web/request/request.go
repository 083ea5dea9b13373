// Package request is what every part of the web app (the public pages, the
// admin console, the JSON API) does with a request before and after its own
// work: read path and query parameters, load the board and the period they
// name, answer with a Problem when the request cannot be served as asked, tell
// an unreachable data store or a client that left from a bug, and render HTML.
// It holds no handlers.
package request

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/web/templates"
)

// Param is a path parameter, unescaped ("a%20b" -> "a b").
func Param(c echo.Context, name string) string {
	v := c.Param(name)
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// Int reads an optional integer query value within [lo, hi]; def when empty.
func Int(raw, name string, def, lo, hi int) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < lo || n > hi {
		p := BadRequest(fmt.Sprintf("%s must be a whole number from %d to %d.", name, lo, hi))
		p.Code, p.Field = "bad_parameter", name
		return 0, p
	}
	return n, nil
}

// BoardReader is what loading a board needs.
type BoardReader interface {
	Board(ctx context.Context, id string) (board.Board, error)
}

// BoardNotFound is the answer Board gives for an unknown board id: also the
// console's answer about a board the user holds no role on.
func BoardNotFound(id string) error { return notFound(id, board.ErrNotFound) }

// Board reads the board with the given id, or a 404 Problem naming it.
func Board(ctx context.Context, store BoardReader, id string) (board.Board, error) {
	b, err := store.Board(ctx, id)
	if errors.Is(err, board.ErrNotFound) {
		return b, notFound(id, err)
	}
	return b, err
}

// Period reads a board's period from a kind and a key (empty: the board's
// default kind, the current period), or a 404 Problem that says what was
// wrong and links back to the board. current says whether it is the period
// holding now.
func Period(b *board.Board, kind, at string, now time.Time) (p board.Period, current bool, err error) {
	p, err = b.ParsePeriod(kind, at, now)
	back := templates.Link{Label: "Back to " + b.Title, Href: "/b/" + url.PathEscape(b.ID)}
	switch {
	case errors.Is(err, board.ErrPeriodDisabled):
		return p, false, ProblemOf(err, "Period not found", fmt.Sprintf("%s has no “%s” period. It keeps: %s.", b.Title, kind, templates.Kinds(b)), back, HomeLink)
	case errors.Is(err, board.ErrInvalidPeriod):
		return p, false, ProblemOf(err, "Period not found", fmt.Sprintf("%s has no such period: %s.", b.Title, Reason(err)), back, HomeLink)
	case err != nil:
		return p, false, err
	}
	return p, b.Current(p.Kind, now).Key == p.Key, nil
}

// Reason is the end of a board error: what exactly was wrong, without the
// context the layers above added.
func Reason(err error) string {
	msg := err.Error()
	if _, rest, ok := strings.Cut(msg, ": "); ok {
		return rest
	}
	return msg
}
