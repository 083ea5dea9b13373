package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"podium/web/request"
	"podium/web/templates"
)

// handleError is the one place errors become responses: the API answers its
// own in JSON; for pages, a Problem keeps its words, domain errors get the
// status of the one table (request.Classify) in the pages' words, a client
// that left gets a debug line and nothing else, and anything else is logged
// and shown as a 500 page that reveals nothing internal.
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
	default:
		pe = s.pageProblem(err, req)
	}
	if pe.Retry > 0 {
		c.Response().Header().Set("Retry-After", request.RetryAfter(pe.Retry))
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

// pageProblem is a domain error's error page: the status the table gives it
// (request.Classify), in the pages' words. An error the table does not know
// is logged and shown as a 500 that reveals nothing internal.
func (s *Server) pageProblem(err error, req *http.Request) *request.Problem {
	c, ok := request.Classify(err)
	if !ok {
		s.log.Error("request failed", slog.String("method", req.Method), slog.String("uri", clipURI(req.RequestURI)), slog.Any("error", err))
		return &request.Problem{Status: http.StatusInternalServerError, Code: c.Code, Title: "Something went wrong",
			Message: "The server could not finish this request. It has been logged; try again in a moment."}
	}
	pe := &request.Problem{Status: c.Status, Code: c.Code, Title: http.StatusText(c.Status), Message: err.Error(), Retry: c.Retry}
	switch c.Status {
	case http.StatusNotFound:
		pe.Title = "Not found"
	case http.StatusUnprocessableEntity:
		pe.Title = "That request is not valid"
	}
	switch c.Code {
	case "period_not_found":
		pe.Title = "Period not found"
	case "definition_changed":
		pe.Title = "The board changed"
	case "period_gone":
		s.log.Warn("a closed period expired from Redis is missing from the archive", slog.String("uri", clipURI(req.RequestURI)), slog.Any("error", err))
		pe.Title = "This period is no longer kept"
		pe.Message = "Its scores have left the live store, and the archive does not hold them, so they cannot be shown."
	case "teams_not_archived":
		pe.Title = "Team standings of this period were not archived"
		pe.Message = "The archive holds this period's members' standing only: it was archived before the archive kept team standings, or while the board kept no teams."
	case "archived":
		pe.Title = "This period is archived"
		pe.Message = "Its scores now live in the archive, where they no longer change. " + request.Reason(err)
	case "busy":
		pe.Title = "Busy for a moment"
	case "unavailable":
		pe.Title, pe.Message = request.StoreDownTitle, request.StoreDownMessage
	}
	return pe
}
