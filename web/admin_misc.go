package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/web/templates"
)

func (s *Server) auditPage(c echo.Context) error {
	ctx := c.Request().Context()
	f := audit.Filter{Board: c.QueryParam("board"), Actor: c.QueryParam("actor")}
	entries, next, err := s.admin.Audit.List(ctx, f, c.QueryParam("before"), 50)
	if errors.Is(err, audit.ErrBadCursor) {
		return badRequest("before must be an audit entry id like 1767225600000-0, as the “Older changes” link gives.",
			templates.Link{Label: "Audit log", Href: "/admin/audit"})
	}
	if err != nil {
		return err
	}
	v := templates.AuditView{Nav: s.nav(c, "audit"), Board: f.Board, Actor: f.Actor}
	for _, e := range entries {
		v.Entries = append(v.Entries, templates.AuditRow{When: e.Time, Actor: e.Actor, Action: e.Action, Board: e.Board,
			Member: e.Member, Period: e.Period, Before: e.Before, After: e.After, Reason: e.Reason})
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
	bs, err := s.opts.Store.Boards(ctx)
	if err != nil {
		return err
	}
	for _, b := range bs {
		v.Boards = append(v.Boards, b.ID)
	}
	if v.Actors, err = s.admin.Audit.Actors(ctx); err != nil {
		return err
	}
	return render(c, 200, templates.AdminPage("Audit log", v.Nav, templates.AuditLog(v)))
}

func (s *Server) keysView(c echo.Context) (templates.KeysView, error) {
	ctx := c.Request().Context()
	v := templates.KeysView{Nav: s.nav(c, "keys"), Errors: map[string]string{}}
	keys, err := s.admin.Keys.List(ctx)
	if err != nil {
		return v, err
	}
	for _, k := range keys {
		row := templates.KeyRow{ID: k.ID, Name: k.Name, Board: k.Board, Created: k.Created, LastUsed: k.LastUsed}
		v.Keys = append(v.Keys, row)
	}
	bs, err := s.opts.Store.Boards(ctx)
	if err != nil {
		return v, err
	}
	for _, b := range bs {
		v.Boards = append(v.Boards, b.ID)
	}
	return v, nil
}

func (s *Server) keysPage(c echo.Context) error {
	v, err := s.keysView(c)
	if err != nil {
		return err
	}
	return render(c, 200, templates.AdminPage("API keys", v.Nav, templates.Keys(v)))
}

// createKey shows the new secret once, in this response only.
func (s *Server) createKey(c echo.Context) error {
	ctx := c.Request().Context()
	name, boardID := strings.TrimSpace(c.FormValue("name")), c.FormValue("board")
	v, err := s.keysView(c)
	if err != nil {
		return err
	}
	v.Name, v.Board = name, boardID
	if boardID != "" {
		if _, err := s.opts.Store.Board(ctx, boardID); errors.Is(err, board.ErrNotFound) {
			v.Errors["board"] = "no such board"
		} else if err != nil {
			return err
		}
	}
	if len(v.Errors) == 0 {
		key, secret, err := s.admin.Keys.Create(ctx, name, boardID)
		if errors.Is(err, access.ErrInvalid) {
			v.Errors["name"] = "give the key a name of 1-64 characters"
		} else if err != nil {
			return err
		} else {
			s.audit(c, audit.Entry{Action: "apikey.create", Board: key.Board, After: key.Name + " (" + key.ID + ")"})
			v, err = s.keysView(c)
			if err != nil {
				return err
			}
			v.NewSecret, v.NewName = secret, key.Name
			return render(c, http.StatusCreated, templates.AdminPage("API keys", v.Nav, templates.Keys(v)))
		}
	}
	return render(c, http.StatusUnprocessableEntity, templates.AdminPage("API keys", v.Nav, templates.Keys(v)))
}

func (s *Server) revokeKey(c echo.Context) error {
	key, err := s.admin.Keys.Revoke(c.Request().Context(), c.Param("id"))
	if errors.Is(err, access.ErrNotFound) {
		return notFound("Key not found", "That API key does not exist (already revoked?).", templates.Link{Label: "API keys", Href: "/admin/keys"})
	}
	if err != nil {
		return err
	}
	s.audit(c, audit.Entry{Action: "apikey.revoke", Board: key.Board, Before: key.Name + " (" + key.ID + ")", After: "(revoked)"})
	return done(c, "/admin/keys", "Key "+key.Name+" revoked.")
}

func (s *Server) usersView(c echo.Context) (templates.UsersView, error) {
	users, err := s.admin.Accounts.List(c.Request().Context())
	return templates.UsersView{Nav: s.nav(c, "users"), Users: users, Errors: map[string]string{}}, err
}

func (s *Server) usersPage(c echo.Context) error {
	v, err := s.usersView(c)
	if err != nil {
		return err
	}
	return render(c, 200, templates.AdminPage("Admins", v.Nav, templates.Users(v)))
}

func (s *Server) addUser(c echo.Context) error {
	user, pass := strings.TrimSpace(c.FormValue("user")), c.FormValue("password")
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
		err := s.admin.Accounts.Create(c.Request().Context(), user, pass)
		if errors.Is(err, access.ErrExists) {
			v.Errors["user"] = "that admin exists"
		} else if err != nil {
			return err
		} else {
			s.audit(c, audit.Entry{Action: "admin.create", After: user})
			return done(c, "/admin/users", "Admin "+user+" added.")
		}
	}
	return render(c, http.StatusUnprocessableEntity, templates.AdminPage("Admins", v.Nav, templates.Users(v)))
}

func (s *Server) removeUser(c echo.Context) error {
	user := c.Param("user")
	err := s.admin.Accounts.Delete(c.Request().Context(), user)
	switch {
	case errors.Is(err, access.ErrLastAdmin):
		return &pageError{status: http.StatusConflict, title: "Not removed", message: "The last admin cannot be removed; add another first.",
			links: []templates.Link{{Label: "Admins", Href: "/admin/users"}}}
	case errors.Is(err, access.ErrNotFound):
		return notFound("Admin not found", "There is no admin "+user+".", templates.Link{Label: "Admins", Href: "/admin/users"})
	case err != nil:
		return err
	}
	s.audit(c, audit.Entry{Action: "admin.remove", Before: user, After: "(removed)"})
	return done(c, "/admin/users", "Admin "+user+" removed.")
}
