package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/web/request"
	"podium/web/templates"
)

// member is a member of a board, with the name it goes by.
type member struct{ ID, Name string }

// boardMembers lists the members with a score in a current period of the
// board, each kind it keeps (those of its opening period first, in its
// order), with their names; at most max+1, so a caller can tell there are
// more than max.
func (s *Handler) boardMembers(ctx context.Context, b *board.Board, max int) ([]member, error) {
	kinds := append([]board.Kind{b.DefaultPeriod}, b.Periods...)
	seen := map[string]bool{}
	var out []member
	now := s.opts.Store.Now()
	for _, k := range kinds {
		p := b.Current(k, now)
		for offset := 0; len(out) <= max; offset += board.MaxPageSize {
			pg, err := s.opts.Store.Page(ctx, b, p, offset, board.MaxPageSize)
			if err != nil {
				return nil, err
			}
			for _, e := range pg.Entries {
				if !seen[e.Member] && len(out) <= max {
					seen[e.Member] = true
					out = append(out, member{e.Member, e.Name})
				}
			}
			if offset+board.MaxPageSize >= pg.Total {
				break
			}
		}
	}
	return out, nil
}

// personalView fills the sharing page's personal links.
func (s *Handler) personalView(c echo.Context, b *board.Board, v *templates.SharingView) error {
	ctx := c.Request().Context()
	links, err := s.opts.Links.ListPersonal(ctx, b.ID)
	if err != nil {
		return err
	}
	members, err := s.boardMembers(ctx, b, access.MaxPersonalLinksPerBoard)
	if err != nil {
		return err
	}
	v.Personal.Members, v.Personal.MaxLinks, v.Personal.Sees = len(members), access.MaxPersonalLinksPerBoard, seesOf(b)
	now := time.Now()
	for _, l := range links {
		v.Personal.Links = append(v.Personal.Links, templates.PersonalRow{ID: l.ID, Name: l.Name, Member: l.Member, By: l.By,
			Created: l.Created, Expires: l.Expires, LastUsed: l.LastUsed, Expired: l.Expired(now)})
	}
	return nil
}

// seesOf says what a personal link shows of the other members.
func seesOf(b *board.Board) string {
	others := "everyone"
	if b.TopOnly > 0 {
		others = fmt.Sprintf("only the top %d", b.TopOnly)
	}
	switch b.Names {
	case board.Initials:
		others += ", names as initials"
	case board.Pseudonyms:
		others += ", names as pseudonyms"
	}
	if !b.Guarded() {
		return "Of the others it shows everyone, as a share link does: the board has no privacy mode (set one on its form to show only the top, or hide names)."
	}
	return "Of the others, the board's privacy mode shows them " + others + "."
}

// personalForm is what the personal links' form asks for.
type personalForm struct {
	members []member
	ttl     time.Duration
	renew   bool
}

// readPersonal reads the form into v's values, and the members it names.
func (s *Handler) readPersonal(c echo.Context, b *board.Board, v *templates.SharingView) (personalForm, error) {
	p := &v.Personal
	p.Errors = map[string]string{}
	p.For, p.List, p.Expires, p.Renew = formValue(c, "for"), formValue(c, "members"), formValue(c, "expires"), formValue(c, "renew") == "1"
	var f personalForm
	ttl, ok := linkLifetimes[p.Expires]
	if !ok {
		v.Personal.Errors["p-expires"] = "choose one of the lifetimes offered"
	}
	f.ttl, f.renew = ttl, p.Renew
	known, err := s.boardMembers(c.Request().Context(), b, access.MaxPersonalLinksPerBoard)
	if err != nil {
		return f, err
	}
	switch p.For {
	case "every":
		f.members = known
		if len(known) == 0 {
			v.Personal.Errors["p-for"] = "nobody has a score on the board yet: list the members' ids instead"
		}
	case "list":
		f.members = listed(p.List, known, p.Errors)
	default:
		v.Personal.Errors["p-for"] = "choose every member, or the members listed"
	}
	if len(f.members) > access.MaxPersonalLinksPerBoard {
		v.Personal.Errors["p-members"] = fmt.Sprintf("a board has at most %d personal links: make them for fewer members at a time", access.MaxPersonalLinksPerBoard)
	}
	return f, nil
}

// listed reads member ids, one a line, named as the board knows them; bad
// ids are an error in errs.
func listed(text string, known []member, errs map[string]string) []member {
	names := map[string]string{}
	for _, m := range known {
		names[m.ID] = m.Name
	}
	var out []member
	var bad []string
	seen := map[string]bool{}
	for i, line := range strings.Split(text, "\n") {
		id := strings.TrimSpace(line)
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		if err := board.CheckMember(id); err != nil {
			bad = append(bad, fmt.Sprintf("line %d (%s)", i+1, request.Reason(err)))
			continue
		}
		name := names[id]
		if name == "" {
			name = id
		}
		out = append(out, member{id, name})
	}
	switch {
	case len(bad) > 0:
		errs["p-members"] = "not member ids: " + strings.Join(bad[:min(len(bad), 5)], "; ")
	case len(out) == 0:
		errs["p-members"] = "list one member id a line"
	}
	return out
}

// createPersonal makes personal links for every member of the board or the
// members listed, and answers with the printable sheet of them: the tokens
// are in this answer only.
func (s *Handler) createPersonal(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	v, err := s.sharingView(c, &b)
	if err != nil {
		return err
	}
	f, err := s.readPersonal(c, &b, &v)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	had, held, err := s.heldLinks(ctx, b.ID)
	if err != nil {
		return err
	}
	todo, skipped := f.members, []string(nil)
	if !f.renew {
		todo, skipped = skipHeld(f.members, had)
	}
	after := held + len(todo) // the board's links once these are made
	for _, m := range todo {
		after -= len(had[m.ID]) // replaced
	}
	switch {
	case len(v.Personal.Errors) > 0:
	case len(todo) == 0:
		v.Personal.Errors["p-members"] = "every member asked for has a personal link already: tick “make a new link” to replace theirs"
	case after > access.MaxPersonalLinksPerBoard:
		v.Personal.Errors["p-members"] = fmt.Sprintf("that would make %d personal links, and a board has at most %d: revoke some first", after, access.MaxPersonalLinksPerBoard)
	}
	if len(v.Personal.Errors) > 0 {
		return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage("Sharing · "+b.Title, v.Nav, templates.Sharing(v)))
	}
	sheet := templates.SheetView{ID: b.ID, Title: b.Title, Back: "/admin/boards/" + url.PathEscape(b.ID) + "/sharing#personal", Skipped: skipped}
	if f.ttl > 0 {
		sheet.Expires = time.Now().Add(f.ttl)
	}
	for _, m := range todo {
		if err := s.revokeHeld(c, b.ID, had[m.ID]); err != nil {
			return err
		}
		link, token, err := s.opts.Links.CreatePersonal(ctx, b.ID, b.Created, m.ID, m.Name, session(c).User, sheet.Expires)
		if errors.Is(err, access.ErrInvalid) { // the bound, reached meanwhile by another owner
			if len(sheet.Cards) > 0 {
				break // the sheet has those made
			}
			v.Personal.Errors["p-members"] = strings.TrimPrefix(err.Error(), access.ErrInvalid.Error()+"\n")
			return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage("Sharing · "+b.Title, v.Nav, templates.Sharing(v)))
		}
		if err != nil {
			return err
		}
		s.audit(c, audit.Entry{Action: "link.create", Board: b.ID, Member: m.ID, After: "personal " + linkLabel(link)})
		sheet.Cards = append(sheet.Cards, templates.SheetCard{Name: link.Name, Member: m.ID, URL: siteURL(c) + "/s/" + token})
	}
	c.Response().Header().Set("Referrer-Policy", "no-referrer")
	return request.Render(c, http.StatusCreated, templates.PersonalSheet(sheet))
}

// heldLinks are the board's personal links by member (expired ones too,
// which count towards the bound until revoked), and how many there are.
func (s *Handler) heldLinks(ctx context.Context, boardID string) (map[string][]access.Link, int, error) {
	links, err := s.opts.Links.ListPersonal(ctx, boardID)
	if err != nil {
		return nil, 0, err
	}
	out := map[string][]access.Link{}
	for _, l := range links {
		out[l.Member] = append(out[l.Member], l)
	}
	return out, len(links), nil
}

// skipHeld leaves out the members who hold a link that still works, and
// names them.
func skipHeld(ms []member, had map[string][]access.Link) (todo []member, skipped []string) {
	now := time.Now()
	for _, m := range ms {
		if slices.ContainsFunc(had[m.ID], func(l access.Link) bool { return !l.Expired(now) }) {
			skipped = append(skipped, m.Name)
		} else {
			todo = append(todo, m)
		}
	}
	return todo, skipped
}

// revokeHeld ends a member's links, audited, before a new one is made.
func (s *Handler) revokeHeld(c echo.Context, boardID string, links []access.Link) error {
	for _, l := range links {
		if _, err := s.opts.Links.Revoke(c.Request().Context(), boardID, l.ID); err != nil && !errors.Is(err, access.ErrNotFound) {
			return err
		}
		s.audit(c, audit.Entry{Action: "link.revoke", Board: boardID, Member: l.Member, Before: "personal " + linkLabel(l), After: "(revoked: a new link replaces it)"})
	}
	return nil
}

// revokePersonal ends every personal link of the board (a class that has
// left, a sheet lost).
func (s *Handler) revokePersonal(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	links, err := s.opts.Links.ListPersonal(c.Request().Context(), b.ID)
	if err != nil {
		return err
	}
	for _, l := range links {
		if _, err := s.opts.Links.Revoke(c.Request().Context(), b.ID, l.ID); errors.Is(err, access.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		s.audit(c, audit.Entry{Action: "link.revoke", Board: b.ID, Member: l.Member, Before: "personal " + linkLabel(l), After: "(revoked)"})
	}
	return s.done(c, "/admin/boards/"+url.PathEscape(b.ID)+"/sharing#personal",
		fmt.Sprintf("%d personal %s revoked: pages opened with them stop within a second.", len(links), map[bool]string{true: "link", false: "links"}[len(links) == 1]))
}
