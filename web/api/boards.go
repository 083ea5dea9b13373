package api

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"podium/audit"
	"podium/board"
)

func (s *Handler) apiCreateBoard(c echo.Context) error {
	if err := allBoards(c); err != nil {
		return err
	}
	var j boardJSON
	if err := decodeJSON(c, &j); err != nil {
		return err
	}
	if j.TimeZone == "" {
		j.TimeZone = s.opts.DefaultTZ // as the console's form starts
	}
	b, err := s.opts.Store.CreateBoard(c.Request().Context(), j.Board())
	if err != nil {
		return err
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "board.create", Board: b.ID, After: audit.Definition(&b)})
	c.Response().Header().Set("Location", "/api/v1/boards/"+url.PathEscape(b.ID))
	return c.JSON(http.StatusCreated, board.SpecOf(&b))
}

func (s *Handler) apiUpdateBoard(c echo.Context) error {
	if err := allBoards(c); err != nil {
		return err
	}
	old, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	var j boardJSON
	if err := decodeJSON(c, &j); err != nil {
		return err
	}
	if j.ID != "" && j.ID != old.ID {
		ae := apiErr(422, "invalid", "id %q in the body differs from %q in the path; a board's id cannot change", j.ID, old.ID)
		ae.Field = "id"
		return ae
	}
	j.ID = old.ID
	// Options fixed at creation may be left out; they keep their values.
	if j.Order == "" {
		j.Order = string(old.Order)
	}
	if j.TieBreak == "" {
		j.TieBreak = string(old.TieBreak)
	}
	if j.Fields == nil {
		j.Fields = board.SpecOf(&old).Fields
	}
	if j.Periods == nil { // left out: kept, like the options above ("periods": [] is refused)
		j.Periods = board.SpecOf(&old).Periods
	}
	if j.Retention == nil { // left out: kept, so an edit never starts expiring periods by surprise
		j.Retention = &old.Retention
	}
	if j.Window == "" { // left out: kept, since it may not change while a window is on
		j.Window = string(old.Window)
	}
	if j.Visibility == "" { // left out: kept
		j.Visibility = string(old.Visibility)
	}
	if j.Names == "" { // left out: kept
		j.Names = string(old.Names)
	}
	if j.TopOnly == nil { // left out: kept; 0 shows everyone
		j.TopOnly = &old.TopOnly
	}
	if j.Teams == "" { // left out: kept; "none" turns teams off
		j.Teams = string(old.Teams)
	}
	if j.Segments == nil { // left out: kept, since taking one off drops its standings; [] takes them off
		j.Segments = old.Segments
	}
	if j.Sessions == nil { // left out: kept; {} takes them off
		j.Sessions = old.Sessions
	}
	if j.Rules == nil { // left out: kept, so an older client's edit never drops them; {} takes them off
		j.Rules = old.Rules
	}
	if !j.League.Set { // left out: kept, since its members' tiers hang on it; null takes it off
		j.League.L = old.League
	}
	b, err := s.opts.Store.UpdateBoard(c.Request().Context(), j.Board())
	if err != nil {
		return err
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "board.update", Board: b.ID, Before: audit.Definition(&old), After: audit.Definition(&b)})
	return c.JSON(http.StatusOK, board.SpecOf(&b))
}

func (s *Handler) apiDeleteBoard(c echo.Context) error {
	if err := allBoards(c); err != nil {
		return err
	}
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	if err := s.opts.Store.DeleteBoard(c.Request().Context(), b.ID); err != nil {
		return err
	}
	after := "(deleted)"
	if s.opts.Forget != nil {
		what, err := s.opts.Forget(c.Request().Context(), b.ID)
		if err != nil {
			s.log.Error("a deleted board's links, embed secret or archive were not all dropped", "board", b.ID, "error", err)
		}
		if what != "" {
			after += ": " + what
		}
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: audit.DeleteAction, Board: b.ID, Before: audit.Definition(&b), After: after})
	return c.NoContent(http.StatusNoContent)
}
