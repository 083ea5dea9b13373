package admin

import (
	"errors"
	"net/http"
	"net/url"
	"slices"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/web/request"
	"podium/web/templates"
)

func (s *Handler) auditPage(c echo.Context) error {
	ctx := c.Request().Context()
	f := audit.Filter{Board: c.QueryParam("board"), Actor: c.QueryParam("actor")}
	var mine []string // a board user's boards: the log of those only
	if !account(c).SiteAdmin {
		var err error
		if mine, err = s.myBoardIDs(c); err != nil {
			return err
		}
		switch {
		case len(mine) == 0:
			v := templates.AuditView{Nav: s.nav(c, "audit")}
			return request.Render(c, 200, templates.AdminPage("Audit log", v.Nav, templates.AuditLog(v)))
		case f.Board == "":
			return c.Redirect(http.StatusSeeOther, "/admin/audit?board="+url.QueryEscape(mine[0]))
		case !slices.Contains(mine, f.Board):
			return request.NotFound("Board not found", "There is no board called “"+access.LogSafe(f.Board)+"” among yours.", templates.Link{Label: "Audit log", Href: "/admin/audit"})
		}
		// Their board's log, not that of an earlier board of the id: its
		// members and scores were never theirs to read.
		if f.After, err = s.opts.Audit.Cut(ctx, f.Board); err != nil {
			return err
		}
	}
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
	if mine != nil {
		v.Boards = mine // and no list of who changed what elsewhere
	} else {
		// Deleted boards too: their logs remain.
		if v.Boards, err = s.opts.Audit.Boards(ctx); err != nil {
			return err
		}
		if v.Actors, err = s.opts.Audit.Actors(ctx); err != nil {
			return err
		}
	}
	return request.Render(c, 200, templates.AdminPage("Audit log", v.Nav, templates.AuditLog(v)))
}
