package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/memberdata"
	"podium/web/request"
)

// Members is a member's data and its erasure (memberdata.Service).
type Members interface {
	Data(ctx context.Context, b *board.Board, member string) (memberdata.Data, error)
	Erase(ctx context.Context, b *board.Board, member string, mode board.EraseMode, by board.Author) (board.Erased, error)
}

// memberBoard loads the board of a member's data or erasure for a key
// that may act on it, and checks the member's id. The board is read
// through the gate first, as every read of a board is: a private board
// answers as an unknown one to a request that may not read it, whatever
// key it holds; then the key must be one that may write to it.
func (s *Handler) memberBoard(c echo.Context) (board.Board, string, error) {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return b, "", err
	}
	if _, ok := c.Get("apikey").(access.APIKey); !ok {
		if err := s.authenticate(c); err != nil {
			return b, "", err
		}
	}
	if err := scoped(c, b.ID); err != nil {
		return b, "", err
	}
	member := request.Param(c, "member")
	if err := board.CheckMember(member); err != nil {
		return b, "", err
	}
	return b, member, nil
}

// noMember is the answer for a member the board keeps nothing of.
func noMember(b *board.Board, member string) error {
	return apiErr(404, "member_not_found", "board %q keeps nothing of member %q: it was never there, or it has been erased", b.ID, member)
}

// apiMemberData is everything the board keeps about a member, as a JSON
// download (memberdata.Data, its lists bounded by memberdata.Limit).
func (s *Handler) apiMemberData(c echo.Context) error {
	b, member, err := s.memberBoard(c)
	if err != nil {
		return err
	}
	d, err := s.opts.Members.Data(c.Request().Context(), &b, member)
	if errors.Is(err, memberdata.ErrNoMember) {
		return noMember(&b, member)
	}
	if err != nil {
		return err
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "member.data", Board: b.ID, Member: member, After: "its data downloaded"})
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, `attachment; filename="`+memberdata.Filename(b.ID, member, d.Generated)+`"`)
	h.Set("Cache-Control", "private, no-store") // a person's data: no cache keeps it
	return c.JSON(http.StatusOK, d)
}

// erasureFailedJSON is the answer of an erasure that did some of its parts
// and failed at the next: the error, and what was done and what is left.
type erasureFailedJSON struct {
	Error   *apiError    `json:"error"`
	Erasure board.Erased `json:"erasure"`
}

func listOr(items []string, none string) string {
	if len(items) == 0 {
		return none
	}
	return strings.Join(items, ", ")
}

// apiEraseMember erases a member from every store: pseudonymised (the
// default) or removed from the open periods.
func (s *Handler) apiEraseMember(c echo.Context) error {
	b, member, err := s.memberBoard(c)
	if err != nil {
		return err
	}
	var body struct {
		Mode string `json:"mode"`
	}
	if err := decodeOptionalJSON(c, &body); err != nil { // no body: the default mode
		return err
	}
	mode, err := board.ParseEraseMode(body.Mode)
	if err != nil {
		return err
	}
	out, err := s.opts.Members.Erase(c.Request().Context(), &b, member, mode, board.Author{Actor: actorOfKey(keyOf(c))})
	switch {
	case errors.Is(err, memberdata.ErrNoMember):
		return noMember(&b, member)
	case errors.Is(err, memberdata.ErrIncomplete):
		ae := apiErr(503, "erase_incomplete", "the erasure of %q is incomplete: done %s; left %s (the server logged why). Send it again to finish: it goes on from there",
			member, listOr(out.Done, "nothing"), strings.Join(out.Pending, ", "))
		return c.JSON(http.StatusServiceUnavailable, erasureFailedJSON{Error: ae, Erasure: out})
	case err != nil:
		return err
	}
	return c.JSON(http.StatusOK, out)
}
