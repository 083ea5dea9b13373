package admin

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/web/request"
	"podium/web/templates"
)

func (s *Handler) usersView(c echo.Context) (templates.UsersView, error) {
	users, err := s.opts.Accounts.List(c.Request().Context())
	return templates.UsersView{Nav: s.nav(c, "users"), Users: users, Errors: map[string]string{}}, err
}

func (s *Handler) usersPage(c echo.Context) error {
	v, err := s.usersView(c)
	if err != nil {
		return err
	}
	return request.Render(c, 200, templates.AdminPage("Admins", v.Nav, templates.Users(v)))
}

func (s *Handler) addUser(c echo.Context) error {
	user, pass := strings.TrimSpace(formValue(c, "user")), formValue(c, "password")
	v, err := s.usersView(c)
	if err != nil {
		return err
	}
	v.User = user
	if err := access.CheckUser(user); err != nil {
		v.Errors["user"] = "1-32 lower-case letters, digits, '.', '_' or '-'"
	}
	if err := access.CheckPassword(pass); err != nil {
		v.Errors["password"] = "at least 10 characters (at most 72 bytes)"
	}
	if len(v.Errors) == 0 {
		err := s.opts.Accounts.Create(c.Request().Context(), user, pass)
		if errors.Is(err, access.ErrExists) {
			v.Errors["user"] = "that admin exists"
		} else if err != nil {
			return err
		} else {
			s.audit(c, audit.Entry{Action: "admin.create", After: user})
			return s.done(c, "/admin/users", "Admin "+user+" added.")
		}
	}
	return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage("Admins", v.Nav, templates.Users(v)))
}

func (s *Handler) removeUser(c echo.Context) error {
	user := c.Param("user")
	err := s.opts.Accounts.Delete(c.Request().Context(), user)
	switch {
	case errors.Is(err, access.ErrLastAdmin):
		return &request.Problem{Status: http.StatusConflict, Code: "conflict", Title: "Not removed", Message: "The last admin cannot be removed; add another first.",
			Links: []templates.Link{{Label: "Admins", Href: "/admin/users"}}}
	case errors.Is(err, access.ErrNotFound):
		return request.NotFound("Admin not found", "There is no admin "+user+".", templates.Link{Label: "Admins", Href: "/admin/users"})
	case err != nil:
		return err
	}
	// End their sessions now, not at their next request: an admin added again
	// under the same name must not find the old sessions alive.
	s.audit(c, audit.Entry{Action: "admin.remove", Before: user, After: "(removed)"})
	if _, err := s.opts.Sessions.DeleteOthers(context.WithoutCancel(c.Request().Context()), user, ""); err != nil {
		// The account is gone: its sessions already fail at their next
		// request (currentSession checks the account). Say so and go on.
		s.log.Warn("ending a removed admin's sessions", slog.String("user", user), slog.Any("error", err))
	}
	return s.done(c, "/admin/users", "Admin "+user+" removed.")
}
