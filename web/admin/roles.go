package admin

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/redisstore"
	"podium/web/request"
	"podium/web/templates"
)

// What each console route needs is declared beside the route (Routes): a
// role on the board its path names (need), or a site admin (siteOnly).
// Site admins hold every role on every board; a board user holds the roles
// given to them (access.Grants) on boards still the ones they were given on.

// account is the signed-in user's account (requireSession sets it).
func account(c echo.Context) access.Account { a, _ := c.Get("account").(access.Account); return a }

// roleOn is acc's role on b.
func (s *Handler) roleOn(ctx context.Context, acc access.Account, b *board.Board) (access.Role, error) {
	if acc.SiteAdmin {
		return access.Owner, nil
	}
	if s.opts.Grants == nil {
		return access.NoRole, nil
	}
	return s.opts.Grants.On(ctx, acc.Name, b.ID, b.Created)
}

// need lets a request through when the signed-in user holds at least role r
// on the board of its path. A board they hold no role on answers as an
// unknown board does (a board user learns nothing of boards not theirs); a
// role too weak is a 403 page that says which role the action needs.
func (s *Handler) need(r access.Role) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			b, have, err := s.boardAndRole(c)
			if err != nil {
				return err
			}
			switch {
			case have == access.NoRole:
				return request.BoardNotFound(b.ID) // as an unknown board
			case have < r:
				return request.Forbidden("Not allowed", refusal(r, have, b.Title),
					templates.Link{Label: b.Title, Href: "/admin/boards/" + url.PathEscape(b.ID)})
			}
			c.Set("role", have)
			if have >= access.Scorekeeper {
				// Those who may freeze and reveal read a frozen board's live
				// standings (redisstore.LiveStandings); a viewer reads what
				// the public does.
				c.SetRequest(c.Request().WithContext(redisstore.LiveStandings(c.Request().Context())))
			}
			return next(c)
		}
	}
}

// boardAndRole reads the board of the request's path and the signed-in
// user's role on it. For a board user, a board they hold no role on costs
// what an unknown board does: one read of the definition from the store
// (past its cache, as request.Gate pays for a refusal) and one of their
// role, so the time of the 404 does not tell them it exists either.
func (s *Handler) boardAndRole(c echo.Context) (board.Board, access.Role, error) {
	ctx, acc, id := c.Request().Context(), account(c), request.Param(c, "board")
	if acc.SiteAdmin {
		b, err := s.loadBoard(c)
		return b, access.Owner, err
	}
	b, fromStore, err := s.boardFrom(ctx, id)
	if errors.Is(err, board.ErrNotFound) {
		_, _ = s.roleOn(ctx, acc, &board.Board{ID: id}) // the read a board that exists costs
		return b, access.NoRole, request.BoardNotFound(id)
	}
	if err != nil {
		return b, access.NoRole, err
	}
	have, err := s.roleOn(ctx, acc, &b)
	if r, ok := s.opts.Store.(request.Rereader); ok && err == nil && have == access.NoRole && !fromStore {
		_, _ = r.Reread(ctx, id) // a cached definition: pay the unknown board's read
	}
	return b, have, err
}

// boardFrom reads a definition, and whether that read went to the store.
func (s *Handler) boardFrom(ctx context.Context, id string) (board.Board, bool, error) {
	if r, ok := s.opts.Store.(request.Rereader); ok {
		return r.BoardFrom(ctx, id)
	}
	b, err := s.opts.Store.Board(ctx, id)
	return b, true, err
}

// refusal says what an action needs and what the user has.
func refusal(need, have access.Role, title string) string {
	what := map[access.Role]string{
		access.Scorekeeper: "Changing scores, names, teams, segments, resets and freezes, and a frozen board's live standings, need the scorekeeper or owner role",
		access.Owner:       "Changing the board's definition, visibility, sharing, roles or webhooks, a member's data and its erasure, or deleting the board needs the owner role",
	}[need]
	return what + " on “" + title + "”; you are its " + have.String() + ". An owner of the board or a site admin can change your role."
}

// siteOnly lets site admins through: users, API keys, new boards.
func (s *Handler) siteOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !account(c).SiteAdmin {
			return request.Forbidden("Not allowed", "Only site admins manage users and API keys and create boards. You may work on the boards you hold a role on.",
				templates.Link{Label: "Your boards", Href: "/admin"})
		}
		return next(c)
	}
}

// roleOf is the role need found for this request.
func roleOf(c echo.Context) access.Role { r, _ := c.Get("role").(access.Role); return r }

// mine keeps the boards the signed-in user holds a role on, with it.
func (s *Handler) mine(c echo.Context, bs []board.Board) ([]board.Board, map[string]access.Role, error) {
	roles := map[string]access.Role{}
	acc := account(c)
	if acc.SiteAdmin {
		for _, b := range bs {
			roles[b.ID] = access.Owner
		}
		return bs, roles, nil
	}
	if s.opts.Grants == nil {
		return nil, roles, nil
	}
	held, err := s.opts.Grants.Of(c.Request().Context(), acc.Name)
	if err != nil {
		return nil, nil, err
	}
	var out []board.Board
	for _, b := range bs {
		if r := held[b.ID].On(b.Created); r != access.NoRole {
			out = append(out, b)
			roles[b.ID] = r
		}
	}
	return out, roles, nil
}

// boardUsers is every console account, for the people page.
func (s *Handler) boardUsers(c echo.Context) ([]access.Account, error) {
	return s.opts.Accounts.List(c.Request().Context())
}

// peopleView is who may do what on b, and the form to change it.
func (s *Handler) peopleView(c echo.Context, b *board.Board) (templates.PeopleView, error) {
	v := templates.PeopleView{Nav: s.nav(c, "boards"), Board: b.ID, Title: b.Title, Errors: map[string]string{}, Role: access.Scorekeeper.String(),
		Visibility: string(b.Visibility)}
	if err := s.allowView(c, b, &v); err != nil {
		return v, err
	}
	accs, err := s.boardUsers(c)
	if err != nil {
		return v, err
	}
	var names []string
	for _, a := range accs {
		if a.SiteAdmin {
			v.SiteAdmins = append(v.SiteAdmins, a.Name)
		} else {
			names = append(names, a.Name)
		}
	}
	held, err := s.opts.Grants.Holders(c.Request().Context(), b.ID, names)
	if err != nil {
		return v, err
	}
	has := map[string]bool{}
	for _, g := range held {
		if r := g.On(b.Created); r != access.NoRole {
			v.Holders = append(v.Holders, templates.Holder{User: g.User, Role: r.String()})
			has[g.User] = true
		}
	}
	for _, n := range names {
		if !has[n] {
			v.Others = append(v.Others, n)
		}
	}
	return v, nil
}

func (s *Handler) peoplePage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	v, err := s.peopleView(c, &b)
	if err != nil {
		return err
	}
	return request.Render(c, 200, templates.AdminPage("People of "+b.Title, v.Nav, templates.People(v)))
}

// grantRole gives a board user a role on the board, or changes theirs.
func (s *Handler) grantRole(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	user, roleName := formValue(c, "user"), formValue(c, "role")
	v, err := s.peopleView(c, &b)
	if err != nil {
		return err
	}
	v.User, v.Role = user, roleName
	role, err := access.ParseRole(roleName)
	if err != nil {
		v.Errors["role"] = "choose viewer, scorekeeper or owner"
	}
	acc, err := s.opts.Accounts.Get(c.Request().Context(), user)
	switch {
	case user == "":
		v.Errors["user"] = "choose a user"
	case errors.Is(err, access.ErrNotFound):
		v.Errors["user"] = "there is no user called “" + access.LogSafe(user) + "”; a site admin adds users"
	case err != nil:
		return err
	case acc.SiteAdmin:
		v.Errors["user"] = acc.Name + " is a site admin, who may do everything on every board already"
	}
	if len(v.Errors) > 0 {
		return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage("People of "+b.Title, v.Nav, templates.People(v)))
	}
	before, err := s.opts.Grants.On(c.Request().Context(), acc.Name, b.ID, b.Created)
	if err != nil {
		return err
	}
	if err := s.opts.Grants.Set(c.Request().Context(), acc.Name, b.ID, role, b.Created); err != nil {
		return err
	}
	s.audit(c, auditRole(b.ID, acc.Name, before, role))
	return s.done(c, peopleHref(b.ID), acc.Name+" is now "+article(role)+" of this board.")
}

// revokeRole takes a board user's role on the board away.
func (s *Handler) revokeRole(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	user := request.Param(c, "user")
	before, err := s.opts.Grants.On(c.Request().Context(), user, b.ID, b.Created)
	if err != nil {
		return err
	}
	if before == access.NoRole {
		return request.NotFound("No such role", access.LogSafe(user)+" holds no role on this board.", templates.Link{Label: "People", Href: peopleHref(b.ID)})
	}
	if _, err := s.opts.Grants.Remove(c.Request().Context(), user, b.ID); err != nil {
		return err
	}
	s.audit(c, auditRole(b.ID, user, before, access.NoRole))
	return s.done(c, peopleHref(b.ID), user+" no longer holds a role on this board.")
}

func peopleHref(id string) string { return "/admin/boards/" + url.PathEscape(id) + "/people" }

func article(r access.Role) string {
	if r == access.Owner {
		return "an owner"
	}
	return "a " + r.String()
}

// auditRole is the audit entry of a role given, changed or taken away.
func auditRole(boardID, user string, before, after access.Role) audit.Entry {
	e := audit.Entry{Board: boardID, Before: user + ": " + before.String(), After: user + ": " + after.String()}
	switch {
	case before == access.NoRole:
		e.Action, e.Before = "role.grant", "(none)"
	case after == access.NoRole:
		e.Action, e.After = "role.revoke", "(none)"
	default:
		e.Action = "role.change"
	}
	return e
}

// myBoardIDs is the ids of the boards the signed-in user holds a role on.
func (s *Handler) myBoardIDs(c echo.Context) ([]string, error) {
	bs, err := s.opts.Store.Boards(c.Request().Context())
	if err != nil {
		return nil, err
	}
	bs, _, err = s.mine(c, bs)
	ids := make([]string, len(bs))
	for i, b := range bs {
		ids[i] = b.ID
	}
	return ids, err
}
