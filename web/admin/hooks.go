package admin

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/audit"
	"podium/board"
	"podium/hooks"
	"podium/web/request"
	"podium/web/templates"
)

// hookRoutes mounts a board's webhook pages, when the console has a registry.
func (s *Handler) hookRoutes(a *echo.Group, owner echo.MiddlewareFunc) {
	if s.opts.Hooks == nil {
		return
	}
	a.GET("/boards/:board/hooks", s.hooksPage, owner)
	a.POST("/boards/:board/hooks", s.createHook, owner)
	a.POST("/boards/:board/hooks/:id/:action", s.hookAction, owner)
}

func (s *Handler) hooksView(c echo.Context, b *board.Board) (templates.HooksView, error) {
	ctx := c.Request().Context()
	v := templates.HooksView{Nav: s.nav(c, "boards"), Board: b.ID, Title: b.Title, Max: hooks.MaxHooks,
		Top: strconv.Itoa(hooks.DefaultTop), Chosen: map[string]bool{}, Errors: map[string]string{}}
	for _, e := range hooks.Events {
		if e == hooks.LeagueClosed && b.League == nil {
			continue // refused without a league
		}
		if e == hooks.LeagueClosed {
			v.LeagueNote = ", a league period's promotions and relegations"
		}
		v.Events = append(v.Events, templates.Link{Label: e.Title(), Href: string(e)})
	}
	// Every period, later ones included, is a box of its own, ticked until
	// the form says otherwise: ticking each period the board keeps today
	// follows those only.
	v.Periods = append(v.Periods, templates.Link{Label: "Every period, including any the board adds later", Href: everyPeriod})
	v.Chosen[everyPeriod] = true
	for _, k := range b.Periods {
		v.Periods = append(v.Periods, templates.Link{Label: kindLabel(b, k), Href: string(k)})
	}
	hs, err := s.opts.Hooks.List(ctx, b.ID)
	if err != nil {
		return v, err
	}
	for _, h := range hs {
		if h.BoardCreated != b.Created.UnixMilli() {
			continue // an earlier board's of this id: the runner drops it
		}
		row := templates.HookRow{ID: h.ID, URL: h.URL, Top: h.Top, Created: h.CreatedAt(), Enabled: h.Enabled, By: h.By}
		var evs []string
		for _, e := range h.Events {
			evs = append(evs, e.Title())
		}
		row.Events = strings.Join(evs, ", ")
		row.Periods = "every period"
		if !h.AllPeriods() {
			var ps []string
			for _, k := range h.Periods {
				ps = append(ps, kindLabel(b, k))
			}
			row.Periods = strings.Join(ps, ", ")
		}
		as, err := s.opts.Hooks.Attempts(ctx, b.ID, h.ID)
		if err != nil {
			return v, err
		}
		for _, a := range as {
			row.Deliveries = append(row.Deliveries, templates.DeliveryRow{At: a.At, Type: string(a.Type), Event: a.Event, Delivery: a.Delivery,
				Outcome: a.Outcome, Attempt: a.Attempt, Code: a.Code, Error: a.Error, Millis: a.Millis, Next: a.Next})
		}
		v.Hooks = append(v.Hooks, row)
	}
	return v, nil
}

// everyPeriod is the form value of "every period, including any the board
// adds later", sent among the periods ticked.
const everyPeriod = "every"

func kindLabel(b *board.Board, k board.Kind) string {
	if k == board.Custom {
		return b.Sched().Name
	}
	if l, ok := map[board.Kind]string{board.Daily: "Day", board.Weekly: "Week", board.Monthly: "Month", board.Yearly: "Year", board.AllTime: "All time"}[k]; ok {
		return l
	}
	return board.Period{Kind: k}.Title() // "Last 7 days"
}

func (s *Handler) renderHooks(c echo.Context, status int, v templates.HooksView) error {
	return request.Render(c, status, templates.AdminPage("Webhooks · "+v.Title, v.Nav, templates.Hooks(v)))
}

func (s *Handler) hooksPage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	v, err := s.hooksView(c, &b)
	if err != nil {
		return err
	}
	return s.renderHooks(c, http.StatusOK, v)
}

// createHook registers a webhook and shows its secret once, in this
// response only; bad input comes back with the values kept.
func (s *Handler) createHook(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	form := postForm(c)
	in := hooks.Input{URL: form.Get("url")}
	for _, e := range form["events"] {
		in.Events = append(in.Events, hooks.Event(e))
	}
	for _, k := range form["periods"] {
		if k == everyPeriod {
			in.AllPeriods = true
		} else {
			in.Periods = append(in.Periods, board.Kind(k))
		}
	}
	top, topErr := strconv.Atoi(strings.TrimSpace(form.Get("top")))
	in.Top = top
	if topErr != nil {
		in.Top = -1
	}
	h, err := s.opts.Hooks.Create(c.Request().Context(), &b, in, s.actor(c))
	v, verr := s.hooksView(c, &b)
	if verr != nil {
		return verr
	}
	var bad *hooks.InvalidError
	switch {
	case errors.As(err, &bad):
		v.Errors = bad.Fields
	case errors.Is(err, hooks.ErrTooMany):
		v.Errors["url"] = err.Error()[len("hooks: "):]
	case err != nil:
		return err
	default:
		s.audit(c, audit.Entry{Action: "hook.create", Board: b.ID, After: h.Summary() + " [" + h.ID + "]"})
		v.NewSecret, v.NewSecretFor = h.Secret, h.URL
		return s.renderHooks(c, http.StatusCreated, v)
	}
	// Sent back as typed, but as text: bytes that are not UTF-8 (refused
	// above) show as U+FFFD.
	v.URL, v.Top = strings.ToValidUTF8(in.URL, "\uFFFD"), strings.ToValidUTF8(form.Get("top"), "\uFFFD")
	v.Chosen = map[string]bool{}
	for _, e := range form["events"] {
		v.Chosen[e] = true
	}
	for _, k := range form["periods"] {
		v.Chosen[k] = true
	}
	return s.renderHooks(c, http.StatusUnprocessableEntity, v)
}

// hookAction: send a test event, turn a hook on or off, give it a new
// secret (shown once), or delete it.
func (s *Handler) hookAction(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	ctx, id, to := c.Request().Context(), c.Param("id"), "/admin/boards/"+b.ID+"/hooks"
	notFound := request.ProblemOf(hooks.ErrNotFound, "Webhook not found", "That webhook does not exist (deleted already?).", templates.Link{Label: "Webhooks", Href: to})
	// One an earlier board of this id left behind (the runner drops it) is
	// not this board's: not listed, and not found here either.
	h, err := s.opts.Hooks.Get(ctx, b.ID, id)
	if errors.Is(err, hooks.ErrNotFound) || (err == nil && h.BoardCreated != b.Created.UnixMilli()) {
		return notFound
	}
	if err != nil {
		return err
	}
	var msg string
	switch c.Param("action") {
	case "test":
		_, err = s.opts.Hooks.SendTest(ctx, b.ID, id)
		msg = "Test event queued for " + h.URL + ": its delivery shows below within a few seconds (reload)."
	case "enable", "disable":
		on := c.Param("action") == "enable"
		h, err = s.opts.Hooks.SetEnabled(ctx, b.ID, id, on)
		msg = "Webhook " + h.URL + " turned off: it gets no events, and its queued deliveries are skipped."
		if on {
			msg = "Webhook " + h.URL + " turned on."
		}
	case "rotate":
		if h, err = s.opts.Hooks.Rotate(ctx, b.ID, id); err == nil {
			s.audit(c, audit.Entry{Action: "hook.rotate", Board: b.ID, After: hooks.RedactURL(h.URL) + " [" + h.ID + "]: new secret"})
			v, err := s.hooksView(c, &b)
			if err != nil {
				return err
			}
			v.NewSecret, v.NewSecretFor = h.Secret, h.URL
			return s.renderHooks(c, http.StatusOK, v)
		}
	case "delete":
		h, err = s.opts.Hooks.Delete(ctx, b.ID, id)
		msg = "Webhook " + h.URL + " deleted."
	default:
		return request.NotFound("No such action", "Webhooks can be tested, turned on or off, given a new secret, or deleted.",
			templates.Link{Label: "Webhooks", Href: to})
	}
	if errors.Is(err, hooks.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	e := audit.Entry{Action: "hook." + c.Param("action"), Board: b.ID, Before: h.Summary() + " [" + h.ID + "]"}
	switch c.Param("action") {
	case "delete":
		e.After = "(deleted)"
	case "enable":
		e.After = "on"
	case "disable":
		e.After = "off"
	case "test":
		e.Before, e.After = "", "test event to "+hooks.RedactURL(h.URL)+" ["+h.ID+"]"
	}
	s.audit(c, e)
	return s.done(c, to, msg)
}
