package admin

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/live"
	"podium/rows"
	"podium/web/templates"
)

// LiveServer streams the console's live standings (live.Hub).
type LiveServer interface {
	Serve(w http.ResponseWriter, r *http.Request, spec live.Spec, origins []string, addr string, guard func(context.Context) error)
}

// liveRows is how many rows of live standings the board's console page shows.
const liveRows = 10

// datetimeLocal is the form of an <input type="datetime-local">.
const datetimeLocal = "2006-01-02T15:04"

// freezeView fills the console's "Freeze and reveal" panel: the freeze's
// state, and the live standings an admin sees while the public does not.
func (s *Handler) freezeView(c echo.Context, b *board.Board, v *templates.ManageView) error {
	now := s.opts.Store.Now()
	loc := b.Location()
	f := &v.Freeze
	f.Zone = b.TimeZone
	f.Default = now.In(loc).Add(time.Hour).Truncate(time.Hour).Format(datetimeLocal)
	if since, ok := b.FrozenSince(now); ok {
		f.Since = rows.FreezeTime(b, since)
	} else if !b.FreezeAt.IsZero() {
		f.At = rows.FreezeTime(b, b.FreezeAt)
	}
	if !b.RevealAt.IsZero() && !b.FreezeAt.IsZero() {
		f.Reveal = rows.FreezeTime(b, b.RevealAt)
		f.RevealV = b.RevealAt.In(loc).Format(datetimeLocal)
	}
	p := b.Current(b.DefaultPeriod, now)
	f.Period = p.Title()
	pg, err := s.opts.Store.Page(c.Request().Context(), b, p, 0, liveRows) // live: see requireSession
	if err != nil {
		return err
	}
	lookup := "/admin/boards/" + url.PathEscape(b.ID) + "?member="
	f.Table = templates.Table{Label: "Live standings of " + b.Title + ", " + p.Title()}
	for _, fl := range b.Fields {
		f.Table.Fields = append(f.Table.Fields, fl.Name)
	}
	for _, r := range rows.Of(b, pg.Entries) {
		f.Table.Rows = append(f.Table.Rows, templates.Row{Rank: r.Rank, Tied: r.Tied, Member: r.Member, Name: r.Name, Score: r.Score,
			Fields: r.Fields, Href: lookup + url.QueryEscape(r.Member)})
	}
	f.Live = templates.LiveInfo{MemberHref: lookup, Frozen: rows.FrozenNotice(b, now, true)}
	if s.opts.Live != nil {
		f.Live.Query = "board=" + url.QueryEscape(b.ID)
		f.Live.Path = "/admin/boards/" + url.PathEscape(b.ID) + "/live"
	}
	return nil
}

// freezeBoard freezes the board's public standings, now or at a time in
// the board's zone.
func (s *Handler) freezeBoard(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	vals, reason, errs := freezeForm(c)
	var at time.Time
	switch vals.Get("when") {
	case "now":
	case "at":
		t, perr := time.ParseInLocation(datetimeLocal, strings.TrimSpace(vals.Get("at")), b.Location())
		if perr != nil {
			errs["at"] = "give a date and time, such as " + s.opts.Store.Now().In(b.Location()).Format(datetimeLocal)
		} else if t.Before(s.opts.Store.Now()) {
			errs["at"] = "is in the past; choose “Now” to freeze at once"
		}
		at = t
	default:
		errs["when"] = "choose now or a time"
	}
	if len(errs) > 0 {
		return s.formFailed(c, &b, "freeze", errs)
	}
	fb, err := s.opts.Store.Freeze(c.Request().Context(), b.ID, at)
	if fes := board.FieldErrors(err); len(fes) > 0 {
		return s.formFailed(c, &b, "freeze", formErrors{fes[0].Field: fes[0].Message})
	}
	if errors.Is(err, board.ErrFrozen) {
		return s.formFailed(c, &b, "freeze", formErrors{"when": "the board is frozen already: unfreeze it first"})
	}
	if err != nil {
		return err
	}
	when := rows.FreezeTime(&fb, fb.FreezeAt)
	s.audit(c, audit.Entry{Action: "board.freeze", Board: b.ID, Before: freezeState(&b, s.opts.Store.Now()), After: "frozen at " + when, Reason: reason})
	msg := "Frozen: the public sees the standings of " + when + " until you unfreeze."
	if fb.FreezeAt.After(s.opts.Store.Now()) {
		msg = "The board freezes at " + when + "."
	}
	return s.done(c, backTo(&b, "")+"#freeze", msg)
}

// freezeForm reads a freeze panel form: its values, its reason, and the
// reason's error if it is too long.
func freezeForm(c echo.Context) (url.Values, string, formErrors) {
	vals := postForm(c)
	reason := strings.TrimSpace(vals.Get("reason"))
	errs := formErrors{}
	if len(reason) > 200 {
		errs["reason"] = "must be at most 200 characters"
	}
	return vals, reason, errs
}

// revealBoard sets (or, left empty, takes off) when the board's freeze
// lifts on its own, a time in the board's zone.
func (s *Handler) revealBoard(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	vals, reason, errs := freezeForm(c)
	var at time.Time
	if raw := strings.TrimSpace(vals.Get("at")); raw != "" {
		t, perr := time.ParseInLocation(datetimeLocal, raw, b.Location())
		if perr != nil {
			errs["at"] = "give a date and time, such as " + s.opts.Store.Now().In(b.Location()).Add(time.Hour).Format(datetimeLocal) + ", or leave it empty"
		}
		at = t
	}
	if len(errs) > 0 {
		return s.formFailed(c, &b, "reveal", errs)
	}
	fb, err := s.opts.Store.ScheduleReveal(c.Request().Context(), b.ID, at)
	if fes := board.FieldErrors(err); len(fes) > 0 {
		return s.formFailed(c, &b, "reveal", formErrors{"at": fes[0].Message})
	}
	if errors.Is(err, board.ErrNotFrozen) {
		return s.formFailed(c, &b, "reveal", formErrors{"at": "the board is not frozen (someone may have unfrozen it); freeze it first"})
	}
	if err != nil {
		return err
	}
	after, msg := "revealed by hand", "The reveal is taken off: only an unfreeze reveals the board."
	if !fb.RevealAt.IsZero() {
		when := rows.FreezeTime(&fb, fb.RevealAt)
		after, msg = "revealing at "+when, "The board reveals on its own at "+when+"."
	}
	s.audit(c, audit.Entry{Action: "board.reveal", Board: b.ID, Before: freezeState(&b, s.opts.Store.Now()), After: after, Reason: reason})
	return s.done(c, backTo(&b, "")+"#freeze", msg)
}

// unfreezeBoard reveals the live standings to everyone (or cancels a
// freeze still to come).
func (s *Handler) unfreezeBoard(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	reason := strings.TrimSpace(formValue(c, "reason"))
	if len(reason) > 200 {
		return s.formFailed(c, &b, "unfreeze", formErrors{"reason": "must be at most 200 characters"})
	}
	before := freezeState(&b, s.opts.Store.Now())
	if _, err := s.opts.Store.Unfreeze(c.Request().Context(), b.ID); errors.Is(err, board.ErrNotFrozen) {
		return s.formFailed(c, &b, "unfreeze", formErrors{"reason": "the board is not frozen (someone may have unfrozen it already)"})
	} else if err != nil {
		return err
	}
	s.audit(c, audit.Entry{Action: "board.unfreeze", Board: b.ID, Before: before, After: "live", Reason: reason})
	return s.done(c, backTo(&b, "")+"#freeze", "Revealed: everyone sees the live standings.")
}

func freezeState(b *board.Board, now time.Time) string {
	switch since, ok := b.FrozenSince(now); {
	case ok:
		return "frozen at " + rows.FreezeTime(b, since)
	case !b.FreezeAt.IsZero():
		return "freezing at " + rows.FreezeTime(b, b.FreezeAt)
	}
	return "live"
}

// liveSocket streams the live standings of the board's default period to
// the console, whatever the public sees: only those who may freeze and
// reveal reach it (the route's need), and only from this site (no embed
// origins). It lasts as long as that access does (liveGuard).
func (s *Handler) liveSocket(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	if s.opts.Live == nil {
		return echo.NewHTTPError(http.StatusNotFound, "live updates are off")
	}
	ck, err := c.Cookie(sessionCookie)
	if err != nil {
		return err // requireSession found it: not reached
	}
	spec := live.Spec{Board: b.ID, Kind: b.DefaultPeriod, Limit: liveRows, Live: true}
	s.opts.Live.Serve(c.Response(), c.Request(), spec, nil, c.RealIP(), s.liveGuard(ck.Value, b, access.Scorekeeper))
	return nil
}

// errNoLongerAllowed ends a console socket whose access has gone.
var errNoLongerAllowed = errors.New("the session, the account or its role on the board that opened this socket has gone")

// liveGuard is asked twice a second (live.Options.GuardInterval) whether
// the session of token may still read b's live standings: it says no once
// the session has ended, its account is gone, the board was deleted or
// made again, or the account's role on it is below need (a site admin made
// a board user, a role taken away; the roles' half-second cache is the
// only delay). A store that cannot answer keeps the socket.
func (s *Handler) liveGuard(token string, b board.Board, need access.Role) func(context.Context) error {
	return func(ctx context.Context) error {
		sess, err := s.opts.Sessions.Get(ctx, token)
		if errors.Is(err, access.ErrNoSession) {
			return errNoLongerAllowed
		} else if err != nil {
			return nil
		}
		acc, err := s.opts.Accounts.Get(ctx, sess.User)
		if errors.Is(err, access.ErrNotFound) {
			return errNoLongerAllowed
		} else if err != nil {
			return nil
		}
		cur, err := s.opts.Store.Board(ctx, b.ID)
		if errors.Is(err, board.ErrNotFound) || (err == nil && !cur.Created.Equal(b.Created)) {
			return errNoLongerAllowed
		} else if err != nil {
			return nil
		}
		if have, err := s.roleOn(ctx, acc, &cur); err == nil && have < need {
			return errNoLongerAllowed
		}
		return nil
	}
}
