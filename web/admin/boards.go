package admin

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/web/request"
	"podium/web/templates"
)

func (s *Handler) adminBoards(c echo.Context) error {
	bs, err := s.opts.Store.Boards(c.Request().Context())
	if err != nil {
		return err
	}
	bs, roles, err := s.mine(c, bs)
	if err != nil {
		return err
	}
	v := templates.AdminBoardsView{Nav: s.nav(c, "boards")}
	for i := range bs {
		b := &bs[i]
		row := templates.AdminBoardRow{ID: b.ID, Title: b.Title, Meta: templates.BoardMeta(b), Periods: templates.Kinds(b), Public: "/b/" + url.PathEscape(b.ID),
			CanOwn: roles[b.ID] >= access.Owner}
		if !v.Nav.Site {
			row.Role = roles[b.ID].String()
		}
		v.Boards = append(v.Boards, row)
	}
	return request.Render(c, 200, templates.AdminPage("Boards", v.Nav, templates.AdminBoards(v)))
}

func (s *Handler) boardFormView(c echo.Context, b board.Board, editing bool, errs formErrors) templates.BoardFormView {
	v := templates.BoardFormView{Nav: s.nav(c, "boards"), Editing: editing, Errors: errs,
		ID: b.ID, Title: b.Title, Format: string(b.Format.Type), Decimals: fmt.Sprint(b.Format.Decimals), Prefix: b.Format.Prefix,
		Suffix: b.Format.Suffix, Order: string(b.Order), DefaultPeriod: string(b.DefaultPeriod), TimeZone: b.TimeZone,
		TieBreak: string(b.TieBreak), RankStyle: string(b.RankStyle), Window: string(b.Window), Teams: string(b.Teams),
		Visibility: string(b.Visibility), Names: string(b.Names), Periods: map[string]bool{}}
	if b.TopOnly > 0 {
		v.TopOnly = fmt.Sprint(b.TopOnly)
	}
	v.Segments, v.Schedule, v.ScheduleName = strings.Join(b.Segments, ", "), b.Schedule, b.ScheduleName
	v.LeagueCohort, v.LeaguePromote, v.LeagueRelegate = fmt.Sprint(board.DefaultCohortSize), "3", "3" // a start for a new league
	if l := b.League; l != nil {
		v.LeagueKind, v.LeagueTiers, v.LeagueIdleDrops = string(l.Kind), strings.Join(l.Tiers, "\n"), l.IdleDrops
		v.LeagueCohort, v.LeaguePromote, v.LeagueRelegate = fmt.Sprint(l.Size()), fmt.Sprint(l.Promote), fmt.Sprint(l.Relegate)
	}
	v.Rules, v.RulesUnit = map[string]string{"on_break": board.RulesRefuse}, "a point, a millisecond, or 0.01 on a board with 2 decimals"
	if b.ID != "" {
		v.RulesUnit = b.Format.Unit()
	}
	if r := b.Rules; r != nil {
		for _, name := range board.RuleNames {
			if x := *r.Bound(name); x != nil {
				v.Rules[name] = fmt.Sprint(*x)
			}
		}
		if r.Holds() {
			v.Rules["on_break"] = board.RulesHold
		}
	}
	if b.Cap > 0 {
		v.Cap = fmt.Sprint(b.Cap)
	}
	v.Retention = fmt.Sprint(b.Retention)
	v.OpensAt, v.ClosesAt = contestFields(&b)
	for _, k := range b.Periods {
		v.Periods[string(k)] = true
	}
	for i := range board.MaxFields {
		if i < len(b.Fields) {
			v.Fields[i] = templates.FieldRow{Name: b.Fields[i].Name, Desc: b.Fields[i].Desc}
		}
	}
	return v
}

func (s *Handler) boardForm(c echo.Context) error {
	if c.Param("board") == "" {
		def := board.Board{TimeZone: s.opts.DefaultTZ, Periods: []board.Kind{board.Weekly, board.AllTime}, Retention: board.DefaultRetention}
		def.Normalize()
		def.DefaultPeriod = board.Weekly
		v := s.boardFormView(c, def, false, nil)
		return request.Render(c, 200, templates.AdminPage("New board", v.Nav, templates.BoardForm(v)))
	}
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	v := s.boardFormView(c, b, true, nil)
	return request.Render(c, 200, templates.AdminPage("Edit "+b.Title, v.Nav, templates.BoardForm(v)))
}

// boardFormErrors merges parse errors with the definition's own checks.
func boardFormErrors(parse formErrors, err error) formErrors {
	errs := formErrors{}
	for _, fe := range board.FieldErrors(err) {
		if _, seen := errs[fe.Field]; !seen {
			errs[fe.Field] = fe.Message
		}
	}
	for k, v := range parse {
		errs[k] = v
	}
	if _, none := parse["periods"]; none {
		// With no period ticked, no default can be one of them: saying so
		// beside "Opens on" would send the admin to the wrong field.
		delete(errs, "default_period")
	}
	return errs
}

func (s *Handler) createBoard(c echo.Context) error {
	form := postForm(c)
	b, perrs := parseBoardForm(form)
	var err error
	if len(perrs) == 0 {
		var created board.Board
		created, err = s.opts.Store.CreateBoard(c.Request().Context(), b)
		if err == nil {
			s.audit(c, audit.Entry{Action: "board.create", Board: created.ID, After: audit.Definition(&created), Reason: "created in the admin console"})
			return s.done(c, "/admin/boards/"+url.PathEscape(created.ID), "Board created.")
		}
		if errors.Is(err, board.ErrExists) {
			perrs["id"] = "a board with this id exists"
		} else if len(board.FieldErrors(err)) == 0 {
			return err
		}
	} else {
		b.Normalize() // for the rest of the errors; the form shows what was sent
		err = b.Validate()
	}
	v := s.sentView(c, form, board.Board{}, boardFormErrors(perrs, err))
	return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage("New board", v.Nav, templates.BoardForm(v)))
}

func (s *Handler) updateBoard(c echo.Context) error {
	old, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	form := postForm(c)
	b, perrs := parseBoardForm(withFixed(form, &old))
	b.ID = old.ID
	if !form.Has("opens_at") && !form.Has("closes_at") {
		b.OpensAt, b.ClosesAt = old.OpensAt, old.ClosesAt // a form without the section (an older page, a script): never drops the window
	} else {
		keepShownBounds(form, &b, &old) // a bound sent as shown stays the instant it was
	}
	b.Sessions = old.Sessions // the form has no fields for score sessions (set over the API)
	if !form.Has("schedule") {
		b.Schedule, b.ScheduleName = old.Schedule, old.ScheduleName // a form from before the field
	}
	if !form.Has("visibility") {
		b.Visibility = old.Visibility // a form from before the field: never opens a private board
	}
	if !form.Has("rules_on_break") {
		b.Rules = old.Rules // a form without the section (an older page, a script): never drops the rules
	}
	if !form.Has("segments") {
		b.Segments = old.Segments // a form without the field (an older page, a script): never drops their standings
	}
	switch {
	case !form.Has("league_kind"):
		b.League = old.League // a form without the section (an older page, a script): never drops the league
	case b.League != nil && old.League != nil && b.League.CohortSize == old.League.Size():
		b.League.CohortSize = old.League.CohortSize // the form shows the default's number: not a change
	}
	for k, m := range fixedChanges(form, &old) {
		perrs[k] = m
	}
	if len(perrs) == 0 {
		var upd board.Board
		upd, err = s.opts.Store.UpdateBoard(c.Request().Context(), b)
		if err == nil {
			s.audit(c, audit.Entry{Action: "board.update", Board: upd.ID, Before: audit.Definition(&old), After: audit.Definition(&upd), Reason: "edited in the admin console"})
			return s.done(c, "/admin/boards/"+url.PathEscape(upd.ID), "Board saved.")
		}
		if len(board.FieldErrors(err)) == 0 {
			return err
		}
	} else {
		b.Normalize()
		err = b.Validate()
	}
	v := s.sentView(c, form, old, boardFormErrors(perrs, err))
	return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage("Edit "+old.Title, v.Nav, templates.BoardForm(v)))
}

// sentView is the board form as it was sent, with its errors: exactly what
// was typed and ticked, not the defaults a definition would fill in (a form
// sent with no period ticked comes back with none ticked). Editing (old has
// an id), the settings fixed at creation are old's.
func (s *Handler) sentView(c echo.Context, form url.Values, old board.Board, errs formErrors) templates.BoardFormView {
	editing := old.ID != ""
	v := s.boardFormView(c, old, editing, errs)
	text := map[string]*string{"title": &v.Title, "format": &v.Format, "prefix": &v.Prefix, "suffix": &v.Suffix,
		"default_period": &v.DefaultPeriod, "time_zone": &v.TimeZone, "rank_style": &v.RankStyle, "cap": &v.Cap, "retention": &v.Retention, "segments": &v.Segments,
		"schedule": &v.Schedule, "schedule_name": &v.ScheduleName,
		"league_kind": &v.LeagueKind, "league_tiers": &v.LeagueTiers, "league_cohort_size": &v.LeagueCohort,
		"league_promote": &v.LeaguePromote, "league_relegate": &v.LeagueRelegate, "opens_at": &v.OpensAt, "closes_at": &v.ClosesAt}
	if !editing {
		text["id"], text["decimals"], text["order"], text["tie_break"] = &v.ID, &v.Decimals, &v.Order, &v.TieBreak
		for i := range v.Fields {
			v.Fields[i] = templates.FieldRow{Name: form.Get(fmt.Sprintf("field%d", i)), Desc: form.Get(fmt.Sprintf("field%d_dir", i)) == "desc"}
		}
	} else if old.Format.Type == board.Decimal {
		delete(text, "format") // fixed: shown as text
	}
	for k, p := range text {
		if form.Has(k) {
			*p = form.Get(k)
		}
	}
	for _, r := range append(slices.Clone(board.RuleNames), "on_break") {
		if form.Has("rules_" + r) {
			v.Rules[r] = form.Get("rules_" + r)
		}
	}
	if form.Has("league_kind") {
		v.LeagueIdleDrops = form.Get("league_idle_drops") != ""
	}
	v.Periods = map[string]bool{}
	for _, p := range form["periods"] {
		v.Periods[p] = true
	}
	return v
}

// deleteView asks to type the board's id before deleting it.
func (s *Handler) deleteView(c echo.Context, b *board.Board, errMsg, typed string) templates.ConfirmView {
	return templates.ConfirmView{Nav: s.nav(c, "boards"), Title: "Delete " + b.Title, Action: "/admin/boards/" + url.PathEscape(b.ID) + "/delete",
		Message: "This deletes the board and every score, name and change it holds, in every period. It cannot be undone.",
		Expect:  b.ID, Back: "/admin/boards/" + url.PathEscape(b.ID), Button: "Delete board", Error: errMsg, Typed: typed}
}

func (s *Handler) deleteBoardPage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	v := s.deleteView(c, &b, "", "")
	return request.Render(c, 200, templates.AdminPage(v.Title, v.Nav, templates.Confirm(v)))
}

func (s *Handler) deleteBoard(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	if formValue(c, "confirm") != b.ID {
		v := s.deleteView(c, &b, "does not match: type "+b.ID+" exactly", formValue(c, "confirm"))
		return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage(v.Title, v.Nav, templates.Confirm(v)))
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
	s.audit(c, audit.Entry{Action: audit.DeleteAction, Board: b.ID, Before: audit.Definition(&b), After: after, Reason: "deleted in the admin console"})
	return s.done(c, "/admin", "Board "+b.ID+" deleted.")
}
