package api

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
)

// teamJSON is one row of a team standing.
type teamJSON struct {
	Rank    int         `json:"rank"`
	Team    string      `json:"team"`
	Members int         `json:"members"`
	Score   json.Number `json:"score"`
	Shown   string      `json:"score_text"`
	Tied    bool        `json:"tied,omitempty"`
}

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
	out := make([]teamJSON, len(pg.Entries))
	for i, r := range rows.Of(&b, pg.Entries) {
		out[i] = teamJSON{Rank: r.Rank, Team: r.Member, Members: sizes[i], Score: json.Number(b.Format.Number(pg.Entries[i].Score)), Shown: r.Score, Tied: r.Tied}
	}
	answer := map[string]any{
		"board": b.ID, "teams_by": string(pg.Teams), "period": toPeriodJSON(p), "total": pg.Total, "offset": offset, "teams": out,
	}
	s.noteFrozen(&b, answer)
	return c.JSON(http.StatusOK, answer)
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
	type memberJSON struct {
		Member string      `json:"member"`
		Name   string      `json:"name"`
		Ranked bool        `json:"ranked"`
		Rank   int         `json:"rank,omitempty"`
		Score  json.Number `json:"score,omitempty"`
		Shown  string      `json:"score_text,omitempty"`
	}
	members := make([]memberJSON, len(sts))
	for i, st := range sts {
		m := memberJSON{Member: st.Member, Name: st.Name, Ranked: st.Ranked}
		if m.Name == "" {
			m.Name = st.Member
		}
		if st.Ranked {
			m.Rank, m.Score, m.Shown = st.Rank, json.Number(b.Format.Number(st.Score)), b.Format.Display(st.Score)
		}
		members[i] = m
	}
	answer := map[string]any{"board": b.ID, "period": toPeriodJSON(p), "team": team, "members": members}
	s.noteFrozen(&b, answer)
	return c.JSON(http.StatusOK, answer)
}

// apiSetTeam puts a member in a team ({"team": "red"}) or takes it out of
// its team ({"team": ""}); its scores move along in every period.
func (s *Handler) apiSetTeam(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	if err := scoped(c, b.ID); err != nil {
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
	return c.JSON(http.StatusOK, map[string]any{"member": member, "team": *body.Team, "left": left, "changed": changed})
}
