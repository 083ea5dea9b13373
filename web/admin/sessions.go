package admin

import (
	"errors"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/web/request"
	"podium/web/templates"
)

// sessionsPage shows the signed-in admin where else they are signed in.
func (s *Handler) sessionsPage(c echo.Context) error {
	sess := session(c)
	list, err := s.opts.Sessions.List(c.Request().Context(), sess.User)
	if err != nil {
		return err
	}
	v := templates.SessionsView{Nav: s.nav(c, "sessions"), Sessions: list, Current: sess.ID()}
	return request.Render(c, 200, templates.AdminPage("Your sessions", v.Nav, templates.Sessions(v)))
}

// endOtherSessions signs the admin out everywhere but here.
func (s *Handler) endOtherSessions(c echo.Context) error {
	sess := session(c)
	ck, err := c.Cookie(sessionCookie)
	if err != nil {
		return err
	}
	n, err := s.opts.Sessions.DeleteOthers(c.Request().Context(), sess.User, ck.Value)
	if err != nil {
		return err
	}
	s.audit(c, audit.Entry{Action: "session.end_others", After: templates.Group(n) + " " + templates.Plural(n, "session", "sessions") + " ended"})
	return s.done(c, "/admin/sessions", "Signed out everywhere else ("+templates.Group(n)+" "+templates.Plural(n, "session", "sessions")+").")
}

// endSession signs one of the admin's other sessions out.
func (s *Handler) endSession(c echo.Context) error {
	sess := session(c)
	id := request.Param(c, "id")
	if id == sess.ID() {
		return request.BadRequest("This is the session you are using; sign out with the button at the top instead.",
			templates.Link{Label: "Your sessions", Href: "/admin/sessions"})
	}
	err := s.opts.Sessions.DeleteByID(c.Request().Context(), sess.User, id)
	if errors.Is(err, access.ErrNotFound) {
		return request.NotFound("Session not found", "That session has already ended.", templates.Link{Label: "Your sessions", Href: "/admin/sessions"})
	}
	if err != nil {
		return err
	}
	s.audit(c, audit.Entry{Action: "session.end", After: "1 session ended"})
	return s.done(c, "/admin/sessions", "That session is signed out.")
}
