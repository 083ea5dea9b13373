package pages

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
	"podium/web/templates"
)

// Teams is what the team pages read of the board engine (redisstore/team.go).
type Teams interface {
	TeamPage(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)
	TeamMembers(ctx context.Context, b *board.Board, p board.Period, team string) ([]board.Standing, error)
	// FromPast says whether a period is read from the archive.
	FromPast(ctx context.Context, b *board.Board, p board.Period) (bool, error)
}

func teamsURL(id string, p board.Period, current bool, page int) string {
	v := periodValues(p, current)
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	return "/b/" + url.PathEscape(id) + "/teams?" + v.Encode()
}

func teamURL(id, team string, p board.Period, current bool) string {
	return "/b/" + url.PathEscape(id) + "/teams/" + url.PathEscape(team) + "?" + periodValues(p, current).Encode()
}

// teamsBoard loads a board that keeps team standings; 404 otherwise.
func (s *Handler) teamsBoard(c echo.Context) (board.Board, error) {
	b, err := s.loadBoard(c)
	if err != nil {
		return b, err
	}
	if b.Teams == board.TeamsOff {
		return b, request.NotFound("No teams", b.Title+" ranks members only: it keeps no team standings.",
			templates.Link{Label: b.Title, Href: "/b/" + url.PathEscape(b.ID)})
	}
	return b, nil
}

// teamsPage is a period's team standing, live, a page at a time.
func (s *Handler) teamsPage(c echo.Context) error {
	b, err := s.teamsBoard(c)
	if err != nil {
		return err
	}
	p, current, err := s.periodOf(c, &b)
	if err != nil {
		return err
	}
	page, err := request.Int(c.QueryParam("page"), "page", 1, 1, 1_000_000)
	if err != nil {
		return err
	}
	pg, err := s.opts.Store.TeamPage(c.Request().Context(), &b, p, (page-1)*defaultSize, defaultSize)
	if errors.Is(err, board.ErrTeamsNotArchived) {
		return s.teamsNotArchived(err, &b, p, current)
	}
	if err != nil {
		return err
	}
	label := p.Title()
	pages := max(1, (pg.Total+defaultSize-1)/defaultSize)
	if page > pages {
		return request.NotFound("Page not found", fmt.Sprintf("%s has %d %s of teams in %s.", b.Title, pages, templates.Plural(pages, "page", "pages"), label),
			templates.Link{Label: "First page", Href: teamsURL(b.ID, p, current, 1)})
	}
	v := templates.TeamsView{
		Title: b.Title, ID: b.ID, Meta: templates.BoardMeta(&b), BoardHref: boardURL(b.ID, p, current, 1, 0, ""),
		PeriodTitle: label, Total: pg.Total, By: teamsBy(pg.Teams),
		Table: teamTable(&b, pg.Entries, "Teams of "+b.Title+", "+label, func(team string) string { return teamURL(b.ID, team, p, current) }),
		Empty: "No team has a score in " + label + " yet.",
		Live: templates.LiveInfo{Period: string(p.Kind), MemberHref: "/b/" + url.PathEscape(b.ID) + "/teams/",
			Frozen: rows.FrozenNotice(&b, s.opts.Store.Now(), false)},
	}
	if p.Kind.Rolling() {
		v.PeriodNote = windowNote(&b, p.Kind)
	}
	if !current {
		v.Live.Key = p.Key
		v.Live.Closed = p.Ended(s.opts.Store.Now())
	}
	if s.opts.Live != nil {
		v.Live.Query = liveQuery(b.ID, p, current, url.Values{"teams": {"1"}, "offset": {strconv.Itoa((page - 1) * defaultSize)}, "limit": {strconv.Itoa(defaultSize)}})
	}
	v.Tabs = s.tabs(&b, p.Kind, func(x board.Period) string { return teamsURL(b.ID, x, true, 1) })
	v.Prev, v.Next = s.neighbours(&b, p, func(x board.Period, cur bool) string { return teamsURL(b.ID, x, cur, 1) })
	if page > 1 {
		v.PrevPage = teamsURL(b.ID, p, current, page-1)
	}
	if page < pages {
		v.NextPage = teamsURL(b.ID, p, current, page+1)
	}
	v.PageLabel = fmt.Sprintf("Page %d of %d", page, pages)
	return request.Render(c, 200, templates.Page("Teams · "+b.Title, templates.TeamsPage(v)))
}

// teamPage lists one team's members with their ranks on the board.
func (s *Handler) teamPage(c echo.Context) error {
	b, err := s.teamsBoard(c)
	if err != nil {
		return err
	}
	p, current, err := s.periodOf(c, &b)
	if err != nil {
		return err
	}
	team := request.Param(c, "team")
	if err := board.CheckTeam(team); err != nil {
		return request.ProblemOf(err, "That request is not valid", request.Reason(err))
	}
	ctx := c.Request().Context()
	sts, err := s.opts.Store.TeamMembers(ctx, &b, p, team)
	if errors.Is(err, board.ErrNotFound) || (err == nil && len(sts) == 0) {
		return request.NotFound("No such team", fmt.Sprintf("%s has no team “%s”.", b.Title, team),
			templates.Link{Label: "Teams", Href: teamsURL(b.ID, p, current, 1)})
	}
	if err != nil {
		return err
	}
	v := templates.TeamView{
		BoardTitle: b.Title, Team: team, TeamsHref: teamsURL(b.ID, p, current, 1), PeriodTitle: p.Title(),
		Table:  templates.Table{Label: team + ", " + p.Title()},
		Frozen: rows.FrozenNotice(&b, s.opts.Store.Now(), false),
	}
	// The archive keeps each member's rank, not who was in which team.
	if past, err := s.opts.Store.FromPast(ctx, &b, p); err != nil {
		return err
	} else if past {
		v.Note = "This period is read from the archive, which keeps each member's rank but not who was in which team: these are " + team + "'s members today, with their ranks in " + p.Title() + "."
	}
	lens := s.opts.Gate.Lens(c, &b)
	var ranked []board.Entry
	for _, st := range sts {
		if !st.Ranked {
			if !lens.Limited() { // names without a place: nothing a privacy mode shows
				v.Unranked = append(v.Unranked, templates.Link{Label: nameOr(st), Href: memberURL(b.ID, st.Member)})
			}
			continue
		}
		ranked = append(ranked, board.Entry{Rank: st.Rank, Position: st.Position, Member: st.Member, Name: nameOr(st), Score: st.Score})
	}
	v.Table = tableOf(lens, ranked, "", v.Table.Label)
	if lens.Limited() && len(ranked) > 0 {
		v.Note = strings.TrimSpace(v.Note + " " + privacyNote(lens))
	}
	v.Tabs = s.tabs(&b, p.Kind, func(x board.Period) string { return teamURL(b.ID, team, x, true) })
	return request.Render(c, 200, templates.Page(team+" · "+b.Title, templates.TeamPage(v)))
}

// teamsNotArchived answers a team read of an archived period whose team
// standing the archive does not hold: it says so, rather than showing an
// empty standing, and leads to what is kept.
func (s *Handler) teamsNotArchived(err error, b *board.Board, p board.Period, current bool) *request.Problem {
	now := b.Current(p.Kind, s.opts.Store.Now())
	return request.ProblemOf(err, "Team standings of this period were not archived",
		fmt.Sprintf("The archive holds the members' standing of %s on %s, but not its team standing: the period was archived before the archive kept team standings, or while the board kept no teams.", p.Title(), b.Title),
		templates.Link{Label: "Members, " + p.Title(), Href: boardURL(b.ID, p, current, 1, 0, "")},
		templates.Link{Label: "Teams, " + now.Title(), Href: teamsURL(b.ID, now, true, 1)}, request.HomeLink)
}

// teamTable is a team standing's table: rows through the same builder as
// members' (ranks, ties, scores), each linking where href says; teams have
// no extra sort fields.
func teamTable(b *board.Board, entries []board.Entry, label string, href func(team string) string) templates.Table {
	t := tableOf(full(b), entries, "", label)
	t.Teams, t.Fields = true, nil
	for i := range t.Rows {
		t.Rows[i].Href, t.Rows[i].Fields = href(t.Rows[i].Member), nil
	}
	return t
}

func nameOr(st board.Standing) string {
	if st.Name != "" {
		return st.Name
	}
	return st.Member
}

// teamsBy says how a board makes its team scores, for people.
func teamsBy(m board.TeamMode) string {
	switch m {
	case board.TeamsAverage:
		return "A team's score is the average of its members' scores in the period."
	case board.TeamsBest:
		return "A team's score is its best member's score in the period."
	}
	return "A team's score is the sum of its members' scores in the period."
}
