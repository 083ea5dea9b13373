package pages

import (
	"context"
	"errors"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
	"podium/web/templates"
)

// embedPage is the iframe widget: the top of a period, or the members around
// ?member= with that member highlighted.
func (s *Handler) embedPage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	p, current, err := s.periodOf(c, &b)
	if err != nil {
		return err
	}
	limit, err := request.Int(c.QueryParam("limit"), "limit", 10, 1, 50)
	if err != nil {
		return err
	}
	theme := c.QueryParam("theme")
	if theme != "" && theme != "light" && theme != "dark" {
		return request.BadRequest("theme must be light or dark (or left out to follow the reader's setting).")
	}
	// The widget is shown to others: the board's privacy mode applies
	// whoever opened it.
	lens := s.opts.Gate.SharedLens(c, &b)
	member, err := widgetMember(lens, c.QueryParam("member"))
	if err != nil {
		return err
	}
	teams := c.QueryParam("teams") == "1"
	if teams && b.Teams == board.TeamsOff {
		return request.BadRequest(b.Title + " keeps no team standings: leave teams out.")
	}
	if teams && member != "" {
		return request.BadRequest("A team widget highlights no member: use teams or member, not both.")
	}
	label := p.Title()
	pg, member, err := s.widgetRows(c.Request().Context(), lens, p, widgetOf{limit: limit, member: member, teams: teams})
	if errors.Is(err, board.ErrTeamsNotArchived) {
		return s.teamsNotArchived(err, &b, p, current)
	}
	if err != nil {
		return err
	}
	v := templates.EmbedView{
		Title:       b.Title,
		BoardHref:   s.baseURL(c) + boardURL(b.ID, p, current, 1, 0, ""),
		PeriodTitle: label,
		Theme:       theme,
		Table:       tableOf(lens, pg.Entries, member, b.Title+", "+label),
		Empty:       "No scores in " + label + " yet.",
		Board:       b.ID,
		Live: templates.LiveInfo{Period: string(p.Kind), MemberHref: s.baseURL(c) + "/b/" + url.PathEscape(b.ID) + "/m/", NewTab: true, Me: member,
			Frozen: rows.FrozenNotice(&b, s.opts.Store.Now(), false), Countdown: countdownOf(&b, s.opts.Store.Now())},
	}
	leaveFrame(&v.Table, s.baseURL(c))
	if teams {
		v.Title, v.Noun, v.Empty = b.Title+": teams", "team teams", "No team has a score in "+label+" yet."
		v.BoardHref = s.baseURL(c) + teamsURL(b.ID, p, current, 1)
		v.Live.MemberHref = s.baseURL(c) + "/b/" + url.PathEscape(b.ID) + "/teams/"
		v.Table = teamTable(&b, pg.Entries, b.Title+": teams, "+label, func(team string) string { return s.baseURL(c) + teamURL(b.ID, team, p, current) })
		v.Table.NewTab = true
	}
	if !current {
		v.Live.Key = p.Key
		v.Live.Closed = p.Ended(s.opts.Store.Now()) // not a future period asked for by key
	}
	if s.opts.Live != nil {
		extra := url.Values{"offset": {"0"}, "limit": {strconv.Itoa(limit)}, "shared": {"1"}}
		if teams {
			extra.Set("teams", "1")
		}
		if member != "" {
			extra = url.Values{"member": {member}, "radius": {strconv.Itoa(limit / 2)}, "shared": {"1"}}
		}
		v.Live.Query = liveQuery(b.ID, p, current, extra)
		if t := s.opts.Gate.LiveTicket(c, b.ID, v.Live.Query); t != "" {
			v.Live.Query += "&ticket=" + url.QueryEscape(t) // a signed widget's socket carries no signature of its own
		}
	}
	return request.Render(c, 200, templates.EmbedPage(b.Title, theme, b.ID, templates.Widget(v)))
}

// leaveFrame makes a widget's table link out of the frame: whole
// addresses, in a new tab.
func leaveFrame(t *templates.Table, base string) {
	t.NewTab = true
	for i := range t.Rows {
		if t.Rows[i].Href != "" {
			t.Rows[i].Href = base + t.Rows[i].Href
		}
	}
}

// widgetMember is the member a widget follows (?member=), as the reader
// may see it: none on a board with a privacy mode (an error), nor another
// member than the one a personal link alone opens (the top then, as for a
// member not on the board).
func widgetMember(lens rows.Lens, member string) (string, error) {
	if member == "" {
		return "", nil
	}
	if err := board.CheckMember(member); err != nil {
		return "", invalidMember(err)
	}
	if lens.Opens(member) {
		return member, nil
	}
	if b := lens.Board; b.Guarded() {
		return "", request.BadRequest(b.Title + " shows its members' places only to themselves: a widget cannot follow one member. Leave member out.")
	}
	return "", nil
}

// widgetOf is what a widget shows: the top limit rows, the rows around a
// member, or the team standing.
type widgetOf struct {
	limit  int
	member string
	teams  bool
}

// widgetRows reads a widget's rows. A member not on the board yet gets the
// top instead, and member comes back empty.
func (s *Handler) widgetRows(ctx context.Context, lens rows.Lens, p board.Period, w widgetOf) (board.Page, string, error) {
	b := lens.Board
	if w.teams {
		pg, err := s.opts.Store.TeamPage(ctx, b, p, 0, w.limit)
		return pg, "", err
	}
	if w.member != "" {
		pg, _, err := s.opts.Store.Around(ctx, b, p, w.member, w.limit/2)
		if !errors.Is(err, board.ErrNotFound) {
			return pg, w.member, err
		}
	}
	pg, err := request.ReadPage(ctx, s.opts.Store, lens, p, 0, w.limit)
	return pg, "", err
}
