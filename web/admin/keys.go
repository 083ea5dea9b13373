package admin

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/web/request"
	"podium/web/templates"
)

func (s *Handler) keysView(c echo.Context) (templates.KeysView, error) {
	ctx := c.Request().Context()
	v := templates.KeysView{Nav: s.nav(c, "keys"), Errors: map[string]string{}}
	keys, err := s.opts.Keys.List(ctx)
	if err != nil {
		return v, err
	}
	for _, k := range keys {
		row := templates.KeyRow{ID: k.ID, Name: k.Name, Board: k.Board, ReadOnly: k.ReadOnly, Created: k.Created, LastUsed: k.LastUsed}
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

func (s *Handler) keysPage(c echo.Context) error {
	v, err := s.keysView(c)
	if err != nil {
		return err
	}
	return request.Render(c, 200, templates.AdminPage("API keys", v.Nav, templates.Keys(v)))
}

// createKey shows the new secret once, in this response only.
func (s *Handler) createKey(c echo.Context) error {
	ctx := c.Request().Context()
	name, boardID, scope := strings.TrimSpace(formValue(c, "name")), formValue(c, "board"), formValue(c, "scope")
	v, err := s.keysView(c)
	if err != nil {
		return err
	}
	v.Name, v.Board, v.Scope = name, boardID, scope
	if scope != "" && scope != "read" {
		v.Errors["scope"] = "choose read and write, or read only"
	}
	if boardID != "" {
		if _, err := s.opts.Store.Board(ctx, boardID); errors.Is(err, board.ErrNotFound) {
			v.Errors["board"] = "no such board"
		} else if err != nil {
			return err
		}
	}
	if len(v.Errors) == 0 {
		key, secret, err := s.opts.Keys.Create(ctx, name, boardID, scope == "read")
		if errors.Is(err, access.ErrInvalid) {
			v.Errors["name"] = "give the key a name of 1-64 characters"
		} else if err != nil {
			return err
		} else {
			after := key.Name + " (" + key.ID + ")"
			if key.ReadOnly {
				after += ", read only"
			}
			s.audit(c, audit.Entry{Action: "apikey.create", Board: key.Board, After: after})
			v, err = s.keysView(c)
			if err != nil {
				return err
			}
			v.NewSecret, v.NewName = secret, key.Name
			return request.Render(c, http.StatusCreated, templates.AdminPage("API keys", v.Nav, templates.Keys(v)))
		}
	}
	return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage("API keys", v.Nav, templates.Keys(v)))
}

func (s *Handler) revokeKey(c echo.Context) error {
	key, err := s.opts.Keys.Revoke(c.Request().Context(), c.Param("id"))
	if errors.Is(err, access.ErrNotFound) {
		return request.NotFound("Key not found", "That API key does not exist (already revoked?).", templates.Link{Label: "API keys", Href: "/admin/keys"})
	}
	if err != nil {
		return err
	}
	s.audit(c, audit.Entry{Action: "apikey.revoke", Board: key.Board, Before: key.Name + " (" + key.ID + ")", After: "(revoked)"})
	return s.done(c, "/admin/keys", "Key "+key.Name+" revoked.")
}
