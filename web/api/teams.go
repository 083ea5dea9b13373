package api

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
)

// teamBoard loads a board that keeps teams; 404 for one that does not.
func (s *Handler) teamBoard(c echo.Context) (board.Board, error) {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return b, err
	}
	if b.Teams == board.TeamsOff {
		return b, apiErr(404, "no_teams", "board %q keeps no team standings", b.ID)
	}
	return b, nil
}

// apiTeams is a page of a period's team standing.
func (s *Handler) apiTeams(c echo.Context) error {
	b, err := s.teamBoard(c)
	if err != nil {
		return err
	}
	p, err := s.apiPeriod(c, &b)
	if err != nil {
		return err
	}
	offset, limit, err := pageParams(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	pg, err := s.opts.Store.TeamPage(ctx, &b, p, offset, limit)
	if err != nil {
		return err
	}
	names := make([]string, len(pg.Entries))
	for i, e := range pg.Entries {
		names[i] = e.Member
	}
	sizes, err := s.opts.Store.TeamSizes(ctx, &b, p, names)
	if err != nil {
		return err
	}
	out := make([]teamRowJSON, len(pg.Entries))
	for i, r := range rows.Of(&b, pg.Entries) {
		out[i] = teamRowJSON{Rank: r.Rank, Team: r.Member, Members: sizes[i], Score: json.Number(b.Format.Number(pg.Entries[i].Score)), Shown: r.Score, Tied: r.Tied}
	}
	return c.JSON(http.StatusOK, teamsJSON{Board: b.ID, FrozenSince: s.frozenSince(&b), Offset: offset, Period: toPeriodJSON(p),
		Teams: out, TeamsBy: string(pg.Teams), Total: pg.Total})
}

// apiTeam is one team in a period: its members with their ranks on the board.
func (s *Handler) apiTeam(c echo.Context) error {
	b, err := s.teamBoard(c)
	if err != nil {
		return err
	}
	p, err := s.apiPeriod(c, &b)
	if err != nil {
		return err
	}
	team := request.Param(c, "team")
	if err := board.CheckTeam(team); err != nil {
		return err
	}
	sts, err := s.opts.Store.TeamMembers(c.Request().Context(), &b, p, team)
	if err != nil {
		return err
	}
	if len(sts) == 0 {
		return apiErr(404, "team_not_found", "board %q has no team %q", b.ID, team)
	}
	lens := s.opts.Gate.Lens(c, &b)
	members := make([]teamMemberJSON, 0, len(sts))
	for _, st := range sts {
		if lens.Limited() && (!st.Ranked || !lens.Shows(st.Position, st.Member)) {
			continue // a member the privacy mode does not show
		}
		m := teamMemberJSON{Member: st.Member, Name: lens.Name(st.Member, st.Name), Ranked: st.Ranked}
		if lens.Hides(st.Member) {
			m.Member, _ = lens.Masker.Alias(&b, st.Member, st.Name)
		}
		if st.Ranked {
			m.Rank, m.Score, m.Shown = st.Rank, json.Number(b.Format.Number(st.Score)), b.Format.Display(st.Score)
		}
		members = append(members, m)
	}
	return c.JSON(http.StatusOK, teamJSON{Board: b.ID, FrozenSince: s.frozenSince(&b), Members: members, Period: toPeriodJSON(p), Team: team})
}

// apiSetTeam puts a member in a team ({"team": "red"}) or takes it out of
// its team ({"team": ""}); its scores move along in every period.
func (s *Handler) apiSetTeam(c echo.Context) error {
	b, err := s.boardToWrite(c)
	if err != nil {
		return err
	}
	var body struct {
		Team   *string `json:"team"`
		Reason string  `json:"reason,omitempty"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if body.Team == nil {
		ae := apiErr(422, "invalid", `team: is required ("" takes the member out of its team)`)
		ae.Field = "team"
		return ae
	}
	member := request.Param(c, "member")
	left, changed, err := s.opts.Store.SetTeam(c.Request().Context(), b.ID, member, *body.Team, board.Author{Actor: actorOfKey(keyOf(c)), Reason: body.Reason})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, teamChangeJSON{Changed: changed, Left: left, Member: member, Team: *body.Team})
}
