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
	"podium/web/request"
	"podium/web/templates"
)

// handleError is the one place errors become responses: the API answers its
// own in JSON; for pages, a Problem keeps its words, known board errors map to
// 4xx, an unreachable Redis is a 503 that says so, a client that left gets a
// debug line and nothing else, and anything else is logged and shown as a 500
// page that reveals nothing internal.
func (s *Server) handleError(err error, c echo.Context) {
	req := c.Request()
	if request.ClientGone(c, err) {
		s.log.Debug("client went away", slog.String("method", req.Method), slog.String("uri", clipURI(req.RequestURI)), slog.Any("error", err))
		if !c.Response().Committed {
			_ = c.NoContent(request.StatusClientClosed) // for the request log; the client is gone
		}
		return
	}
	if c.Response().Committed {
		s.log.Error("error after response started", slog.String("uri", clipURI(req.RequestURI)), slog.Any("error", err))
		return
	}
	down := request.StoreUnavailable(err)
	if down {
		s.log.Warn("data store unavailable", slog.String("method", req.Method), slog.String("uri", clipURI(req.RequestURI)), slog.Any("error", err))
	}
	if strings.HasPrefix(req.URL.Path, "/api/") {
		s.api.HandleError(err, c)
		return
	}
	var pe *request.Problem
	var he *echo.HTTPError
	switch {
	case errors.As(err, &pe):
	case errors.As(err, &he):
		pe = &request.Problem{Status: he.Code, Title: http.StatusText(he.Code), Message: fmt.Sprint(he.Message)}
		if he.Code == http.StatusNotFound {
			pe.Title, pe.Message = "Page not found", "There is nothing at "+req.URL.Path+"."
		}
	case errors.Is(err, board.ErrNotFound):
		pe = request.NotFound("Not found", err.Error())
	case errors.Is(err, board.ErrInvalidInput), errors.Is(err, board.ErrInvalidMember), errors.Is(err, board.ErrInvalidPeriod):
		pe = request.BadRequest(err.Error())
	case errors.Is(err, board.ErrDefinitionChanged):
		pe = &request.Problem{Status: http.StatusConflict, Title: "The board changed", Message: err.Error()}
	case errors.Is(err, board.ErrGone):
		s.log.Warn("a closed period expired from Redis is missing from the archive", slog.String("uri", clipURI(req.RequestURI)), slog.Any("error", err))
		pe = &request.Problem{Status: http.StatusGone, Title: "This period is no longer kept",
			Message: "Its scores have left the live store, and the archive does not hold them, so they cannot be shown."}
	case errors.Is(err, board.ErrTeamsNotArchived):
		pe = &request.Problem{Status: http.StatusGone, Title: "Team standings of this period were not archived",
			Message: "The archive holds this period's members' standing only: it was archived before the archive kept team standings, or while the board kept no teams."}
	case errors.Is(err, board.ErrArchived):
		pe = &request.Problem{Status: http.StatusConflict, Title: "This period is archived",
			Message: "Its scores now live in the archive, where they no longer change. " + request.Reason(err)}
	case errors.Is(err, board.ErrBusy):
		c.Response().Header().Set("Retry-After", "2")
		pe = &request.Problem{Status: http.StatusServiceUnavailable, Title: "Busy for a moment", Message: err.Error()}
	case down:
		c.Response().Header().Set("Retry-After", request.RetryAfter(request.StoreRetry))
		pe = &request.Problem{Status: http.StatusServiceUnavailable, Title: request.StoreDownTitle, Message: request.StoreDownMessage}
	default:
		s.log.Error("request failed", slog.String("method", req.Method), slog.String("uri", clipURI(req.RequestURI)), slog.Any("error", err))
		pe = &request.Problem{Status: http.StatusInternalServerError, Title: "Something went wrong",
			Message: "The server could not finish this request. It has been logged; try again in a moment."}
	}
	links := pe.Links
	if len(links) == 0 {
		links = []templates.Link{request.HomeLink}
	}
	if req.Method == http.MethodHead {
		_ = c.NoContent(pe.Status)
		return
	}
	var body templ.Component = templates.ErrorPage(templates.ErrorView{Code: pe.Status, Title: pe.Title, Message: pe.Message, Links: links})
	if strings.HasPrefix(req.URL.Path, "/embed/") {
		body = templates.EmbedPage(pe.Title, "", "", body)
	} else {
		body = templates.Page(pe.Title, body)
	}
	if rerr := request.Render(c, pe.Status, body); rerr != nil {
		level := slog.LevelError
		if request.ClientGone(c, rerr) {
			level = slog.LevelDebug
		}
		s.log.LogAttrs(req.Context(), level, "render error page", slog.Any("error", rerr))
	}
}
