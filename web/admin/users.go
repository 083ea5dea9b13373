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
	return templates.UsersView{Nav: s.nav(c, "users"), Users: users, Kind: "board", Errors: map[string]string{}, OrgSignIn: s.opts.OrgSignIn}, err
}

func (s *Handler) usersPage(c echo.Context) error {
	v, err := s.usersView(c)
	if err != nil {
		return err
	}
	return request.Render(c, 200, templates.AdminPage("Users", v.Nav, templates.Users(v)))
}

func (s *Handler) addUser(c echo.Context) error {
	user, pass, kind := strings.TrimSpace(formValue(c, "user")), formValue(c, "password"), formValue(c, "kind")
	v, err := s.usersView(c)
	if err != nil {
		return err
	}
	v.User, v.Kind = user, kind
	if kind == "" {
		kind = "site" // the form before board users existed
	}
	if kind != "site" && kind != "board" {
		v.Errors["kind"] = "choose a board user or a site admin"
	}
	if err := access.CheckUser(user); err != nil {
		v.Errors["user"] = "1-64 lower-case letters, digits, '.', '_', '-', '+' or '@'"
	}
	switch {
	case pass == "" && s.opts.OrgSignIn && strings.Contains(user, "@"):
		pass = access.NoPassword // signs in with the organisation only
	case pass == "" && s.opts.OrgSignIn:
		v.Errors["password"] = "at least 10 characters; or none, for a user named by their email address who signs in with your organisation"
	case access.CheckPassword(pass) != nil:
		v.Errors["password"] = "at least 10 characters (at most 72 bytes)"
	}
	if len(v.Errors) == 0 {
		create, action, what := s.opts.Accounts.Create, "admin.create", "Site admin "
		if kind == "board" {
			create, action, what = s.opts.Accounts.CreateBoardUser, "user.create", "Board user "
		}
		err := create(c.Request().Context(), user, pass)
		if errors.Is(err, access.ErrExists) {
			v.Errors["user"] = "that user exists"
		} else if err != nil {
			return err
		} else {
			s.audit(c, audit.Entry{Action: action, After: user})
			return s.done(c, "/admin/users", what+user+" added.")
		}
	}
	return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage("Users", v.Nav, templates.Users(v)))
}

func (s *Handler) removeUser(c echo.Context) error {
	user := c.Param("user")
	err := s.opts.Accounts.Delete(c.Request().Context(), user)
	switch {
	case errors.Is(err, access.ErrLastAdmin):
		return &request.Problem{Status: http.StatusConflict, Code: "conflict", Title: "Not removed", Message: "The last site admin cannot be removed; make another user a site admin first.",
			Links: []templates.Link{{Label: "Users", Href: "/admin/users"}}}
	case errors.Is(err, access.ErrNotFound):
		return request.NotFound("User not found", "There is no user "+access.LogSafe(user)+".", templates.Link{Label: "Users", Href: "/admin/users"})
	case err != nil:
		return err
	}
	// End their sessions now, not at their next request: an admin added again
	// under the same name must not find the old sessions alive.
	s.audit(c, audit.Entry{Action: "admin.remove", Before: user, After: "(removed)"})
	if s.opts.Grants != nil {
		if err := s.opts.Grants.DropUser(context.WithoutCancel(c.Request().Context()), user); err != nil {
			// A user added again under the name would find them: say so.
			s.log.Error("dropping a removed user's roles", slog.String("user", user), slog.Any("error", err))
		}
	}
	if _, err := s.opts.Sessions.DeleteOthers(context.WithoutCancel(c.Request().Context()), user, ""); err != nil {
		// The account is gone: its sessions already fail at their next
		// request (currentSession checks the account). Say so and go on.
		s.log.Warn("ending a removed admin's sessions", slog.String("user", user), slog.Any("error", err))
	}
	return s.done(c, "/admin/users", "User "+user+" removed.")
}

// setUserKind makes a user a site admin or a board user. Their sessions stay
// (the next request reads the new kind); their known devices are asked for
// the password again (the account's stamp changed).
func (s *Handler) setUserKind(c echo.Context) error {
	user, kind := request.Param(c, "user"), formValue(c, "kind")
	if kind != "site" && kind != "board" {
		return request.BadRequest("kind must be site or board.", templates.Link{Label: "Users", Href: "/admin/users"})
	}
	words := map[bool]string{true: "site admin", false: "board user"}
	acc, err := s.opts.Accounts.Get(c.Request().Context(), user)
	if err == nil {
		if acc.SiteAdmin == (kind == "site") {
			return s.done(c, "/admin/users", user+" is a "+words[acc.SiteAdmin]+" already.")
		}
		err = s.opts.Accounts.SetSiteAdmin(c.Request().Context(), user, kind == "site")
	}
	switch {
	case errors.Is(err, access.ErrLastAdmin):
		return &request.Problem{Status: http.StatusConflict, Code: "conflict", Title: "Not changed", Message: "The last site admin cannot become a board user; make another user a site admin first.",
			Links: []templates.Link{{Label: "Users", Href: "/admin/users"}}}
	case errors.Is(err, access.ErrNotFound):
		return request.NotFound("User not found", "There is no user "+access.LogSafe(user)+".", templates.Link{Label: "Users", Href: "/admin/users"})
	case err != nil:
		return err
	}
	before, after := words[acc.SiteAdmin], words[kind == "site"]
	s.audit(c, audit.Entry{Action: "user.kind", Before: user + ": " + before, After: user + ": " + after})
	return s.done(c, "/admin/users", user+" is now a "+after+".")
}
