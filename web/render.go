package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/web/templates"
)

// render writes a component as an HTML response.
func render(c echo.Context, status int, t templ.Component) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	return t.Render(c.Request().Context(), c.Response())
}

// pageError is an error a handler returns to show a specific error page.
type pageError struct {
	status  int
	title   string
	message string
	links   []templates.Link
}

func (e *pageError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.title, e.message) }

func notFound(title, message string, links ...templates.Link) error {
	return &pageError{status: http.StatusNotFound, title: title, message: message, links: links}
}

func badRequest(message string, links ...templates.Link) error {
	return &pageError{status: http.StatusBadRequest, title: "That request is not valid", message: message, links: links}
}

var homeLink = templates.Link{Label: "All boards", Href: "/"}

// handleError is the one place errors become responses: page errors keep
// their words, known board errors map to 4xx, an unreachable Redis is a 503
// that says so, a client that left gets a debug line and nothing else, and
// anything else is logged and shown as a 500 page that reveals nothing internal.
func (s *Server) handleError(err error, c echo.Context) {
	req := c.Request()
	if clientGone(c, err) {
		s.log.Debug("client went away", slog.String("method", req.Method), slog.String("uri", req.RequestURI), slog.Any("error", err))
		if !c.Response().Committed {
			_ = c.NoContent(statusClientClosed) // for the request log; the client is gone
		}
		return
	}
	if c.Response().Committed {
		s.log.Error("error after response started", slog.String("uri", req.RequestURI), slog.Any("error", err))
		return
	}
	down := storeUnavailable(err)
	if down {
		s.log.Warn("data store unavailable", slog.String("method", req.Method), slog.String("uri", req.RequestURI), slog.Any("error", err))
	}
	if strings.HasPrefix(req.URL.Path, "/api/") {
		s.apiError(err, c)
		return
	}
	var pe *pageError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &pe):
	case errors.As(err, &he):
		pe = &pageError{status: he.Code, title: http.StatusText(he.Code), message: fmt.Sprint(he.Message)}
		if he.Code == http.StatusNotFound {
			pe.title, pe.message = "Page not found", "There is nothing at "+req.URL.Path+"."
		}
	case errors.Is(err, board.ErrNotFound):
		pe = &pageError{status: http.StatusNotFound, title: "Not found", message: err.Error()}
	case errors.Is(err, board.ErrInvalidInput), errors.Is(err, board.ErrInvalidMember), errors.Is(err, board.ErrInvalidPeriod):
		pe = &pageError{status: http.StatusBadRequest, title: "That request is not valid", message: err.Error()}
	case down:
		c.Response().Header().Set("Retry-After", retryAfter(storeRetry))
		pe = &pageError{status: http.StatusServiceUnavailable, title: storeDownTitle, message: storeDownMessage}
	default:
		s.log.Error("request failed", slog.String("method", req.Method), slog.String("uri", req.RequestURI), slog.Any("error", err))
		pe = &pageError{status: http.StatusInternalServerError, title: "Something went wrong",
			message: "The server could not finish this request. It has been logged; try again in a moment."}
	}
	if len(pe.links) == 0 {
		pe.links = []templates.Link{homeLink}
	}
	view := templates.ErrorView{Code: pe.status, Title: pe.title, Message: pe.message, Links: pe.links}
	if req.Method == http.MethodHead {
		_ = c.NoContent(pe.status)
		return
	}
	var body templ.Component = templates.ErrorPage(view)
	if strings.HasPrefix(req.URL.Path, "/embed/") {
		body = templates.EmbedPage(pe.title, "", "", body)
	} else {
		body = templates.Page(pe.title, body)
	}
	if rerr := render(c, pe.status, body); rerr != nil {
		level := slog.LevelError
		if clientGone(c, rerr) {
			level = slog.LevelDebug
		}
		s.log.LogAttrs(req.Context(), level, "render error page", slog.Any("error", rerr))
	}
}
