package admin

import (
	"errors"
	"net/url"

	"github.com/labstack/echo/v4"

	"podium/audit"
	"podium/web/request"
	"podium/web/templates"
)

func (s *Handler) auditPage(c echo.Context) error {
	ctx := c.Request().Context()
	f := audit.Filter{Board: c.QueryParam("board"), Actor: c.QueryParam("actor")}
	entries, next, err := s.opts.Audit.List(ctx, f, c.QueryParam("before"), 50)
	if errors.Is(err, audit.ErrBadCursor) {
		return request.BadRequest("before must be a place in the log as the “Older changes” link gives it, like 1767225600000-0.9c1d5e2f40a1b3c7.0.",
			templates.Link{Label: "Audit log", Href: "/admin/audit"})
	}
	if err != nil {
		return err
	}
	v := templates.AuditView{Nav: s.nav(c, "audit"), Board: f.Board, Actor: f.Actor}
	for _, e := range entries {
		v.Entries = append(v.Entries, templates.AuditRow{When: e.Time, Actor: e.Actor, Action: e.Action, Board: e.Board,
			Member: e.Member, Reason: e.Reason, Changes: changesOf(e)})
	}
	if next != "" {
		q := url.Values{"before": {next}}
		if f.Board != "" {
			q.Set("board", f.Board)
		}
		if f.Actor != "" {
			q.Set("actor", f.Actor)
		}
		v.Next = "/admin/audit?" + q.Encode()
	}
	// Deleted boards too: their logs remain.
	if v.Boards, err = s.opts.Audit.Boards(ctx); err != nil {
		return err
	}
	if v.Actors, err = s.opts.Audit.Actors(ctx); err != nil {
		return err
	}
	return request.Render(c, 200, templates.AdminPage("Audit log", v.Nav, templates.AuditLog(v)))
}
