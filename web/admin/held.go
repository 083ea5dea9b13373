package admin

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
	"podium/web/templates"
)

// Moderation is the review queue of a board's held scores
// (redisstore.Moderation).
type Moderation interface {
	Held(ctx context.Context, boardID string) ([]board.HeldWrite, error)
	ApproveHeld(ctx context.Context, boardID string, id int64, by board.Author) (board.Result, error)
	RejectHeld(ctx context.Context, b *board.Board, id int64, by board.Author) (board.HeldWrite, error)
}

// heldPage lists the board's held scores: who, what, which rule, when.
func (s *Handler) heldPage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	held, err := s.opts.Store.Held(c.Request().Context(), b.ID)
	if err != nil {
		return err
	}
	v := templates.HeldView{Nav: s.nav(c, "boards"), ID: b.ID, Title: b.Title, Holds: b.Rules.Holds()}
	for _, h := range held {
		name := h.Name
		if name == "" {
			name = h.Member
		}
		v.Rows = append(v.Rows, templates.HeldRow{ID: strconv.FormatInt(h.ID, 10), Member: h.Member, Name: name,
			What: string(h.Op) + " " + b.Format.Display(h.Value), Rule: h.Rule + ": " + ruleLimit(&b, h.Rule),
			At: rows.FreezeTime(&b, h.At), By: h.By})
	}
	return request.Render(c, 200, templates.AdminPage("Held scores of "+b.Title, v.Nav, templates.AdminHeld(v)))
}

// ruleLimit says what the board's rule asks now, "" for a rule it no
// longer has.
func ruleLimit(b *board.Board, rule string) string {
	if b.Rules == nil {
		return "no longer a rule"
	}
	v := *b.Rules.Bound(rule)
	if v == nil {
		return "no longer a rule"
	}
	return board.RuleText(rule, b.Format.Display(float64(*v)))
}

// heldID is the held score of the request's path.
func heldID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, request.NotFound("No such held score", "There is no held score "+strconv.Quote(c.Param("id"))+".")
	}
	return id, nil
}

// approveHeld applies a held score with its original time; the submit
// script audits it.
func (s *Handler) approveHeld(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	id, err := heldID(c)
	if err != nil {
		return err
	}
	back := "/admin/boards/" + url.PathEscape(b.ID) + "/held"
	res, err := s.opts.Store.ApproveHeld(c.Request().Context(), b.ID, id, board.Author{Actor: s.actor(c), Reason: "approved in the admin console"})
	switch {
	case errors.Is(err, board.ErrHeldGone):
		return s.done(c, back, "That score is no longer held: someone approved or rejected it first.")
	case err != nil:
		return err
	}
	msg := fmt.Sprintf("Approved: %s's score is applied.", res.Member)
	if ch, ok := res.Change(b.DefaultPeriod); ok && ch.After.Ranked {
		msg = fmt.Sprintf("Approved: %s now has %s (%s).", res.Member, b.Format.Display(ch.After.Score), templates.Ordinal(ch.After.Rank))
	}
	return s.done(c, back, msg)
}

// rejectHeld drops a held score; its script audits it.
func (s *Handler) rejectHeld(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	id, err := heldID(c)
	if err != nil {
		return err
	}
	back := "/admin/boards/" + url.PathEscape(b.ID) + "/held"
	h, err := s.opts.Store.RejectHeld(c.Request().Context(), &b, id, board.Author{Actor: s.actor(c), Reason: "rejected in the admin console"})
	switch {
	case errors.Is(err, board.ErrHeldGone):
		return s.done(c, back, "That score is no longer held: someone approved or rejected it first.")
	case err != nil:
		return err
	}
	return s.done(c, back, fmt.Sprintf("Rejected: %s's score of %s was dropped.", h.Member, b.Format.Display(h.Value)))
}
