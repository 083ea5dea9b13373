package admin

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/web/request"
	"podium/web/templates"
)

// allowView fills the People page's "Your organisation" panel: who may read
// the board by signing in with the organisation.
func (s *Handler) allowView(c echo.Context, b *board.Board, v *templates.PeopleView) error {
	if !s.opts.OrgSignIn || s.opts.Allow == nil {
		return nil
	}
	a, err := s.opts.Allow.Get(c.Request().Context(), b.ID)
	if err != nil {
		return err
	}
	v.OrgSignIn = true
	if a.Since.UnixMilli() == b.Created.UnixMilli() {
		v.Domains, v.Groups = strings.Join(a.Domains, ", "), strings.Join(a.Groups, ", ")
	}
	return nil
}

// setAllow replaces the board's allow-list.
func (s *Handler) setAllow(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	if !s.opts.OrgSignIn || s.opts.Allow == nil {
		return request.NotFound("Not available", "Sign-in with your organisation is not set up on this site (OIDC_ISSUER).")
	}
	v, err := s.peopleView(c, &b)
	if err != nil {
		return err
	}
	before := allowWords(v.Domains, v.Groups)
	domains, groups := formValue(c, "domains"), formValue(c, "groups")
	a, errs := access.ParseAllowed(domains, groups)
	if len(errs) > 0 {
		v.Domains, v.Groups, v.Errors = domains, groups, errs
		return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage("People of "+b.Title, v.Nav, templates.People(v)))
	}
	if err := s.opts.Allow.Set(c.Request().Context(), b.ID, b.Created, a); err != nil {
		return err
	}
	after := allowWords(strings.Join(a.Domains, ", "), strings.Join(a.Groups, ", "))
	s.audit(c, audit.Entry{Action: "allow.set", Board: b.ID, Before: before, After: after})
	msg := "Nobody is admitted by signing in with the organisation."
	if !a.Empty() {
		msg = "Admitted by signing in with the organisation: " + after + "."
	}
	if b.Visibility != board.Private {
		msg += " (The board is " + string(b.Visibility) + ": anyone reads it already.)"
	}
	return s.done(c, peopleHref(b.ID), msg)
}

// allowWords says an allow-list for the audit log and messages.
func allowWords(domains, groups string) string {
	var parts []string
	if domains != "" {
		parts = append(parts, "addresses at "+domains)
	}
	if groups != "" {
		parts = append(parts, "groups "+groups)
	}
	if len(parts) == 0 {
		return "(nobody)"
	}
	return strings.Join(parts, "; ")
}
