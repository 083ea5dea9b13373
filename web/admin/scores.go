package admin

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/board"
	"podium/rows"
	"podium/web/request"
	"podium/web/templates"
)

// manageView is the board's admin page: the member's current standing, and
// the forms that change scores, each with its own values and errors.
func (s *Handler) manageView(c echo.Context, b *board.Board, member string) (templates.ManageView, error) {
	v := templates.ManageView{Nav: s.nav(c, "boards"), ID: b.ID, Title: b.Title, Meta: templates.BoardMeta(b),
		Public: "/b/" + url.PathEscape(b.ID), Member: member, Errors: map[string]string{}, Values: map[string]string{"op": "incr"},
		Teams: b.Teams != board.TeamsOff, Segments: b.Segments, People: s.opts.Grants != nil, MemberData: s.opts.Members != nil, Holds: b.Rules.Holds()}
	role := roleOf(c)
	if !v.Nav.Site {
		v.Role = role.String()
	}
	v.CanScore, v.CanOwn = role >= access.Scorekeeper, role >= access.Owner
	now := s.opts.Store.Now()
	v.Periods = append(v.Periods, templates.Link{Label: "Every period", Href: "all"})
	for _, k := range b.Periods {
		p := b.Current(k, now)
		v.Periods = append(v.Periods, templates.Link{Label: templates.TabLabel(p) + " (" + p.Title() + ")", Href: p.String()})
		v.ResetPeriods = append(v.ResetPeriods, templates.Link{Label: templates.TabLabel(p) + " (" + p.Title() + ")", Href: p.String()})
	}
	if v.CanScore { // the freeze panel, with the live standings
		if err := s.freezeView(c, b, &v); err != nil {
			return v, err
		}
	}
	if member == "" {
		return v, nil
	}
	if err := board.CheckMember(member); err != nil {
		v.Errors["lookup"] = request.Reason(err)
		return v, nil
	}
	sts, err := s.opts.Store.Member(c.Request().Context(), b, member)
	if err != nil {
		return v, err
	}
	for _, st := range sts {
		mp := templates.MemberPeriod{Label: templates.TabLabel(st.Period), Key: st.Period.Key, Ranked: st.Ranked}
		if st.Ranked {
			mp.Rank, mp.Score, mp.Of = templates.Ordinal(st.Rank), b.Format.Display(st.Score), templates.Group(st.Total)
			mp.Percentile = fmt.Sprintf("%.0f%%", st.Percentile())
		}
		if st.Name != "" && st.Name != member {
			v.Name = st.Name
		}
		v.Standing = append(v.Standing, mp)
	}
	v.Values["member"] = member
	if v.Teams {
		if v.Team, err = s.opts.Store.TeamOf(c.Request().Context(), b, member); err != nil {
			return v, err
		}
	}
	if len(b.Segments) > 0 {
		if err := s.memberSegments(c.Request().Context(), b, member, &v); err != nil {
			return v, err
		}
	}
	return v, nil
}

func (s *Handler) manageBoard(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	v, err := s.manageView(c, &b, strings.TrimSpace(c.QueryParam("member")))
	if err != nil {
		return err
	}
	return request.Render(c, 200, templates.AdminPage(b.Title, v.Nav, templates.ManageBoard(v)))
}

// formFailed shows the board page again with the form's values and errors.
func (s *Handler) formFailed(c echo.Context, b *board.Board, form string, errs formErrors) error {
	member := strings.TrimSpace(formValue(c, "member"))
	if board.CheckMember(member) != nil {
		member = ""
	}
	v, err := s.manageView(c, b, member)
	if err != nil {
		return err
	}
	v.Form = form
	vals := postForm(c)
	for k := range vals {
		if k != "csrf" {
			v.Values[k] = vals.Get(k)
		}
	}
	for k, m := range errs {
		v.Errors[k] = m
	}
	return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage(b.Title, v.Nav, templates.ManageBoard(v)))
}

func backTo(b *board.Board, member string) string {
	to := "/admin/boards/" + url.PathEscape(b.ID)
	if member != "" {
		to += "?member=" + url.QueryEscape(member)
	}
	return to
}

func (s *Handler) adjustScore(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	vals := postForm(c)
	f, errs := parseScoreForm(vals, b.Format)
	if len(errs) > 0 {
		return s.formFailed(c, &b, "score", errs)
	}
	sub := board.Submission{Member: f.Member, Score: f.Score, Unit: b.Format.Unit(), Op: board.Op(f.Op), Name: f.Name, Team: f.Team,
		Session: board.SessionWaived} // a person's adjustment, not a game's run: no session needed
	res, err := s.opts.Store.Submit(c.Request().Context(), b.ID, sub, board.Author{Actor: s.actor(c), Reason: f.Reason})
	if ce := (*board.ContestError)(nil); errors.As(err, &ce) {
		msg := "the contest has closed: it closed at " + rows.FreezeTime(&b, ce.At) + "; nothing was written"
		if ce.Early {
			msg = "the contest has not opened yet: it opens at " + rows.FreezeTime(&b, ce.At) + "; nothing was written"
		}
		return s.formFailed(c, &b, "score", formErrors{"value": msg})
	}
	if re := (*board.RuleError)(nil); errors.As(err, &re) {
		return s.formFailed(c, &b, "score", formErrors{"value": "breaks the board's rule " + re.Rule + " (" + board.RuleText(re.Rule, re.Limit) + "); nothing was written"})
	}
	if err != nil {
		fes := board.FieldErrors(err)
		if len(fes) == 0 {
			return err
		}
		field := fes[0].Field
		if field == "score" {
			field = "value"
		}
		return s.formFailed(c, &b, "score", formErrors{field: fes[0].Message})
	}
	name := f.Name
	if name == "" {
		name = s.nameOf(c, &b, f.Member)
	}
	if res.Held {
		return s.done(c, backTo(&b, f.Member), "Held for review: the score breaks the board's rule "+res.Rule+"; it waits on the board's review page.")
	}
	msg := "Score saved for " + who(name, f.Member) + "."
	if ch, ok := res.Change(b.DefaultPeriod); ok && ch.After.Ranked {
		msg = fmt.Sprintf("%s now has %s (%s).", who(name, f.Member), b.Format.Display(ch.After.Score), templates.Ordinal(ch.After.Rank))
	}
	return s.done(c, backTo(&b, f.Member), msg)
}

// nameOf is a member's display name for a message, or "" when it cannot be
// read: the change is made, so a failed read only plainer words.
func (s *Handler) nameOf(c echo.Context, b *board.Board, member string) string {
	sts, err := s.opts.Store.Ranks(c.Request().Context(), b, b.Current(b.DefaultPeriod, s.opts.Store.Now()), []string{member})
	if err != nil || len(sts) == 0 {
		return ""
	}
	return sts[0].Name
}

// who names a member the way people know them, with the id where the two
// differ: "Ann K (ann)", or "ann".
func who(name, id string) string {
	if name == "" || name == id {
		return id
	}
	return name + " (" + id + ")"
}

// periodChoice reads "all" or a current period's label from a form.
func periodChoice(b *board.Board, raw string, allowAll bool) (*board.Period, error) {
	if raw == "all" && allowAll {
		return nil, nil
	}
	kind, key, _ := strings.Cut(raw, ":")
	k, err := board.ParseKind(kind)
	if err != nil || !b.Enabled(k) {
		return nil, errors.New("choose a period")
	}
	p, err := b.PeriodOf(k, key)
	if err != nil {
		return nil, errors.New("choose a period")
	}
	return &p, nil
}

func (s *Handler) removeMember(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	member, why := strings.TrimSpace(formValue(c, "member")), strings.TrimSpace(formValue(c, "reason"))
	errs := formErrors{}
	if err := board.CheckMember(member); err != nil {
		errs["member"] = request.Reason(err)
	}
	p, perr := periodChoice(&b, formValue(c, "period"), true)
	if perr != nil {
		errs["period"] = perr.Error()
	}
	if why == "" {
		errs["reason"] = "say why, for the audit log"
	}
	if len(errs) > 0 {
		return s.formFailed(c, &b, "remove", errs)
	}
	name := s.nameOf(c, &b, member) // before: removing from every period forgets it
	removed, err := s.opts.Store.RemoveMember(c.Request().Context(), b.ID, member, p, board.Author{Actor: s.actor(c), Reason: why})
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		return s.formFailed(c, &b, "remove", formErrors{"member": "has no score there"})
	}
	return s.done(c, backTo(&b, ""), fmt.Sprintf("%s removed from %d %s.", who(name, member), len(removed), templates.Plural(len(removed), "period", "periods")))
}

func (s *Handler) resetPeriod(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	errs := formErrors{}
	p, perr := periodChoice(&b, formValue(c, "period"), false)
	if perr != nil {
		errs["period"] = perr.Error()
	}
	if formValue(c, "confirm") != b.ID {
		errs["confirm"] = "type " + b.ID + " to confirm"
	}
	why := strings.TrimSpace(formValue(c, "reason"))
	if why == "" {
		errs["reason"] = "say why, for the audit log"
	}
	if len(errs) > 0 {
		return s.formFailed(c, &b, "reset", errs)
	}
	n, err := s.opts.Store.ResetPeriod(c.Request().Context(), b.ID, *p, board.Author{Actor: s.actor(c), Reason: why})
	if err != nil {
		return err
	}
	return s.done(c, backTo(&b, ""), fmt.Sprintf("%s emptied (%d members).", p.Title(), n))
}

func (s *Handler) renameMember(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	member, name := strings.TrimSpace(formValue(c, "member")), strings.TrimSpace(formValue(c, "name"))
	errs := formErrors{}
	if err := board.CheckMember(member); err != nil {
		errs["member"] = request.Reason(err)
	}
	if err := board.CheckName(name); err != nil {
		errs["name"] = request.Reason(err)
	}
	if len(errs) > 0 {
		return s.formFailed(c, &b, "rename", errs)
	}
	by := board.Author{Actor: s.actor(c), Reason: strings.TrimSpace(formValue(c, "reason"))}
	prev, err := s.opts.Store.SetName(c.Request().Context(), b.ID, member, name, by)
	if err != nil {
		return err
	}
	return s.done(c, backTo(&b, member), who(prev, member)+" is now shown as "+name+".")
}

// setTeam puts a member in a team, or out of its team with an empty one.
func (s *Handler) setTeam(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	member, team := strings.TrimSpace(formValue(c, "member")), strings.TrimSpace(formValue(c, "team"))
	errs := formErrors{}
	if err := board.CheckMember(member); err != nil {
		errs["member"] = request.Reason(err)
	}
	if team != "" {
		if err := board.CheckTeam(team); err != nil {
			errs["team"] = request.Reason(err)
		}
	}
	if b.Teams == board.TeamsOff {
		errs["team"] = "this board keeps no teams: turn them on in its settings first"
	}
	if len(errs) > 0 {
		return s.formFailed(c, &b, "team", errs)
	}
	by := board.Author{Actor: s.actor(c), Reason: strings.TrimSpace(formValue(c, "reason"))}
	left, changed, err := s.opts.Store.SetTeam(c.Request().Context(), b.ID, member, team, by)
	if err != nil {
		if fes := board.FieldErrors(err); len(fes) > 0 {
			return s.formFailed(c, &b, "team", formErrors{fes[0].Field: fes[0].Message})
		}
		return err
	}
	msg := member + " is now in " + team + "."
	switch {
	case !changed && team == "":
		msg = member + " was in no team."
	case !changed:
		msg = member + " was already in " + team + "."
	case team == "":
		msg = member + " left " + left + "."
	case left != "":
		msg = member + " moved from " + left + " to " + team + ", with their scores."
	}
	return s.done(c, backTo(&b, member), msg)
}
