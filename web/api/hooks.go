package api

import (
	"errors"
	"maps"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"podium/audit"
	"podium/board"
	"podium/hooks"
	"podium/web/request"
)

// hookBoard loads the board in the path for a key that may manage it:
// webhooks send a board's standings away, so reading them needs a key too.
func (s *Handler) hookBoard(c echo.Context) (board.Board, error) {
	if s.opts.Hooks == nil {
		return board.Board{}, apiErr(404, "not_found", "this server keeps no webhooks")
	}
	return s.boardToWrite(c)
}

// apiHooks lists a board's webhooks with their recent deliveries.
func (s *Handler) apiHooks(c echo.Context) error {
	b, err := s.hookBoard(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	hs, err := s.opts.Hooks.List(ctx, b.ID)
	if err != nil {
		return err
	}
	out := make([]hookJSON, 0, len(hs))
	for _, h := range hs {
		if h.BoardCreated != b.Created.UnixMilli() {
			continue // an earlier board's of this id: the runner drops it
		}
		j := toHookJSON(h)
		if j.Deliveries, err = s.opts.Hooks.Attempts(ctx, b.ID, h.ID); err != nil {
			return err
		}
		out = append(out, j)
	}
	return c.JSON(http.StatusOK, hooksJSON{Board: b.ID, Hooks: out})
}

// apiCreateHook registers a webhook; the answer holds its secret, shown once.
func (s *Handler) apiCreateHook(c echo.Context) error {
	b, err := s.hookBoard(c)
	if err != nil {
		return err
	}
	var body struct {
		URL     string        `json:"url"`
		Events  []hooks.Event `json:"events"`
		Periods *[]board.Kind `json:"periods"` // left out (or null): every period, including those the board adds later
		Top     *int          `json:"top"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	in := hooks.Input{URL: body.URL, Events: body.Events, AllPeriods: body.Periods == nil, Top: hooks.DefaultTop}
	if body.Periods != nil {
		in.Periods = *body.Periods // [] is no choice at all: refused
	}
	if body.Top != nil {
		in.Top = *body.Top
	}
	h, err := s.opts.Hooks.Create(c.Request().Context(), &b, in, actorOfKey(keyOf(c)))
	if err != nil {
		return hookErr(err)
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "hook.create", Board: b.ID, After: h.Summary() + " [" + h.ID + "]"})
	j := toHookJSON(h)
	j.Secret = h.Secret
	c.Response().Header().Set("Location", "/api/v1/boards/"+b.ID+"/hooks/"+h.ID)
	return c.JSON(http.StatusCreated, j)
}

// boardHook reads the webhook in the path; one an earlier board of this id
// left (the runner drops it) is not found, to read or to change, as the
// list leaves it out.
func (s *Handler) boardHook(c echo.Context, b *board.Board) (hooks.Hook, error) {
	h, err := s.opts.Hooks.Get(c.Request().Context(), b.ID, request.Param(c, "id"))
	if err == nil && h.BoardCreated != b.Created.UnixMilli() {
		err = hooks.ErrNotFound
	}
	if err != nil {
		return h, hookErr(err)
	}
	return h, nil
}

// apiHook shows one webhook with its recent deliveries.
func (s *Handler) apiHook(c echo.Context) error {
	b, err := s.hookBoard(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	h, err := s.boardHook(c, &b)
	if err != nil {
		return err
	}
	j := toHookJSON(h)
	if j.Deliveries, err = s.opts.Hooks.Attempts(ctx, b.ID, h.ID); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, j)
}

// apiPatchHook turns a webhook on or off: an off hook gets no events, and
// its queued deliveries are skipped.
func (s *Handler) apiPatchHook(c echo.Context) error {
	b, err := s.hookBoard(c)
	if err != nil {
		return err
	}
	var body struct {
		Enabled *bool `json:"enabled"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if body.Enabled == nil {
		ae := apiErr(422, "invalid", "enabled: say true or false (it is the one thing a webhook's PATCH changes)")
		ae.Field = "enabled"
		return ae
	}
	before, err := s.boardHook(c, &b)
	if err != nil {
		return err
	}
	h, err := s.opts.Hooks.SetEnabled(c.Request().Context(), b.ID, before.ID, *body.Enabled)
	if err != nil {
		return hookErr(err)
	}
	if before.Enabled != h.Enabled { // an answer that changes nothing records nothing
		e := audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "hook.disable", Board: b.ID, Before: h.Summary() + " [" + h.ID + "]", After: "off"}
		if h.Enabled {
			e.Action, e.After = "hook.enable", "on"
		}
		s.record(c, e)
	}
	return c.JSON(http.StatusOK, toHookJSON(h))
}

// apiRotateHook gives a webhook a new secret, in the answer and never
// again; deliveries from then on are signed with it only.
func (s *Handler) apiRotateHook(c echo.Context) error {
	b, err := s.hookBoard(c)
	if err != nil {
		return err
	}
	if _, err := s.boardHook(c, &b); err != nil {
		return err
	}
	h, err := s.opts.Hooks.Rotate(c.Request().Context(), b.ID, request.Param(c, "id"))
	if err != nil {
		return hookErr(err)
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "hook.rotate", Board: b.ID, After: hooks.RedactURL(h.URL) + " [" + h.ID + "]: new secret"})
	j := toHookJSON(h)
	j.Secret = h.Secret
	return c.JSON(http.StatusOK, j)
}

// apiDeleteHook removes a webhook; its queued deliveries are dropped.
func (s *Handler) apiDeleteHook(c echo.Context) error {
	b, err := s.hookBoard(c)
	if err != nil {
		return err
	}
	if _, err := s.boardHook(c, &b); err != nil {
		return err
	}
	h, err := s.opts.Hooks.Delete(c.Request().Context(), b.ID, request.Param(c, "id"))
	if err != nil {
		return hookErr(err)
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "hook.delete", Board: b.ID, Before: h.Summary() + " [" + h.ID + "]", After: "(deleted)"})
	return c.NoContent(http.StatusNoContent)
}

// apiTestHook queues a test event ("ping") for a webhook; its delivery shows
// in the hook's deliveries.
func (s *Handler) apiTestHook(c echo.Context) error {
	b, err := s.hookBoard(c)
	if err != nil {
		return err
	}
	h, err := s.boardHook(c, &b)
	if err != nil {
		return err
	}
	ev, err := s.opts.Hooks.SendTest(c.Request().Context(), b.ID, h.ID)
	if err != nil {
		return hookErr(err)
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "hook.test", Board: b.ID, After: "test event to " + hooks.RedactURL(h.URL) + " [" + h.ID + "]"})
	return c.JSON(http.StatusAccepted, hookTestJSON{Event: ev, Hook: h.ID})
}

// hookErr words the registry's errors for the API; their status and code
// are the table's (request.Classify).
func hookErr(err error) error {
	var bad *hooks.InvalidError
	switch {
	case errors.As(err, &bad) && len(bad.Fields) > 0:
		fields := slices.Sorted(maps.Keys(bad.Fields))
		ae := apiErrorFor(err, "%s: %s", fields[0], bad.Fields[fields[0]])
		ae.Field = fields[0]
		for _, f := range fields {
			ae.Fields = append(ae.Fields, fieldIssue{Field: f, Message: bad.Fields[f]})
		}
		return ae
	case errors.Is(err, hooks.ErrTooMany):
		return apiErrorFor(err, "a board may have at most %d webhooks", hooks.MaxHooks)
	case errors.Is(err, hooks.ErrNotFound):
		return apiErrorFor(err, "no such webhook on this board")
	}
	return err
}
