package admin

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/audit"
	"podium/board"
	"podium/memberdata"
	"podium/web/request"
	"podium/web/templates"
)

// Members is a member's data and its erasure (memberdata.Service).
type Members interface {
	Data(ctx context.Context, b *board.Board, member string) (memberdata.Data, error)
	Erase(ctx context.Context, b *board.Board, member string, mode board.EraseMode, by board.Author) (board.Erased, error)
}

// nothingOf says that the board keeps nothing of a member.
func nothingOf(b *board.Board, member string) string {
	return "“" + b.Title + "” keeps nothing of “" + member + "”: it was never there, or it has been erased."
}

// memberData is the board owner's download of everything the board keeps
// about the member the lookup named (memberdata.Data); the download is
// recorded in the audit log.
func (s *Handler) memberData(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	back := templates.Link{Label: b.Title, Href: "/admin/boards/" + url.PathEscape(b.ID)}
	member := strings.TrimSpace(c.QueryParam("member"))
	if err := board.CheckMember(member); err != nil {
		return request.BadRequest("The member id "+request.Reason(err)+".", back)
	}
	d, err := s.opts.Members.Data(c.Request().Context(), &b, member)
	if errors.Is(err, memberdata.ErrNoMember) {
		return request.NotFound("No such member", nothingOf(&b, member), back)
	}
	if err != nil {
		return err
	}
	s.audit(c, audit.Entry{Action: "member.data", Board: b.ID, Member: member, After: "its data downloaded"})
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="`+memberdata.Filename(b.ID, member, d.Generated)+`"`)
	return c.JSONPretty(http.StatusOK, d, "  ")
}

// eraseView is the erase page for member, with the values sent.
func (s *Handler) eraseView(c echo.Context, b *board.Board, member string) templates.EraseView {
	return templates.EraseView{Nav: s.nav(c, "boards"), ID: b.ID, Title: b.Title, Member: member, Errors: map[string]string{}}
}

// erasePage asks which member to erase, how, and to type its id again.
func (s *Handler) erasePage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	v := s.eraseView(c, &b, strings.TrimSpace(c.QueryParam("member")))
	return request.Render(c, http.StatusOK, templates.AdminPage("Erase a member", v.Nav, templates.EraseMember(v)))
}

// eraseMember erases a member from every store (memberdata.Service.Erase);
// the erasure records its own audit entry, which names the pseudonym only.
func (s *Handler) eraseMember(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	v := s.eraseView(c, &b, strings.TrimSpace(formValue(c, "member")))
	v.Typed, v.Mode = formValue(c, "confirm"), formValue(c, "mode")
	if err := board.CheckMember(v.Member); err != nil {
		v.Errors["member"] = request.Reason(err)
	}
	mode, err := board.ParseEraseMode(v.Mode)
	if fe := (*board.FieldError)(nil); errors.As(err, &fe) {
		v.Errors["mode"] = fe.Message
	}
	if strings.TrimSpace(v.Typed) != v.Member {
		v.Errors["confirm"] = "does not match the member id: type it exactly"
	}
	page := func(status int) error {
		return request.Render(c, status, templates.AdminPage("Erase a member", v.Nav, templates.EraseMember(v)))
	}
	if len(v.Errors) > 0 {
		return page(http.StatusUnprocessableEntity)
	}
	out, err := s.opts.Members.Erase(c.Request().Context(), &b, v.Member, mode, board.Author{Actor: s.actor(c)})
	switch {
	case errors.Is(err, memberdata.ErrNoMember):
		v.Errors["member"] = nothingOf(&b, v.Member)
		return page(http.StatusNotFound)
	case errors.Is(err, memberdata.ErrIncomplete):
		v.Done, v.Pending = out.Done, out.Pending
		return page(http.StatusServiceUnavailable)
	case err != nil:
		return err
	}
	to := "/admin/boards/" + url.PathEscape(b.ID)
	if out.Status == board.ErasedBefore {
		return s.done(c, to, "That member was erased before: nothing of it is left.")
	}
	msg := "Member erased: its scores are now under " + out.Pseudonym + "."
	if out.Mode == board.RemoveMember {
		msg = "Member erased: removed from the open periods, and " + out.Pseudonym + " in closed ones."
	}
	return s.done(c, to, msg)
}
