package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/web/request"
)

// Leagues for readers: the league and its cohorts in a period, a cohort's
// standing, a member's league. A cohort's standing is a group standing
// like a segment's (board.CohortSegment), and a reader a privacy mode
// limits sees of it what the segment filter of /entries would show them.

// leaguesJSON is a board's league and its tiers' cohorts in a period
// (getLeagues).
type leaguesJSON struct {
	Board       string           `json:"board"`
	FrozenSince *time.Time       `json:"frozen_since,omitempty"`
	League      board.League     `json:"league"`
	Period      periodJSON       `json:"period"`
	Tiers       []leagueTierJSON `json:"tiers"`
}

// leagueTierJSON is one tier, lowest first, with its cohorts in the period.
type leagueTierJSON struct {
	Tier    int                `json:"tier"`
	Name    string             `json:"name"`
	Cohorts []leagueCohortJSON `json:"cohorts"`
}

// leagueCohortJSON is one cohort: Members (placed in it) is left out where
// the reader is not told how many members a period holds.
type leagueCohortJSON struct {
	Cohort  int  `json:"cohort"`
	Members *int `json:"members,omitempty"`
}

// cohortPageJSON is a page of a cohort's standing (getCohort): ranks
// within the cohort, each entry's rank on the whole period beside.
type cohortPageJSON struct {
	Board       string      `json:"board"`
	Cohort      int         `json:"cohort"`
	Entries     []entryJSON `json:"entries"`
	FrozenSince *time.Time  `json:"frozen_since,omitempty"`
	Offset      int         `json:"offset"`
	Period      periodJSON  `json:"period"`
	Tier        int         `json:"tier"`
	TierName    string      `json:"tier_name"`
	Total       int         `json:"total"`
}

// memberLeagueJSON is a member's league in a period (getMemberLeague).
type memberLeagueJSON struct {
	Board       string      `json:"board"`
	Cohort      int         `json:"cohort,omitempty"`
	FrozenSince *time.Time  `json:"frozen_since,omitempty"`
	Member      string      `json:"member"`
	Move        string      `json:"move,omitempty"`
	Next        *int        `json:"next_tier,omitempty"`
	NextName    string      `json:"next_tier_name,omitempty"`
	Period      periodJSON  `json:"period"`
	Placed      bool        `json:"placed"`
	Rank        int         `json:"rank,omitempty"`
	Ranked      bool        `json:"ranked"`
	Score       json.Number `json:"score,omitempty"`
	Shown       string      `json:"score_text,omitempty"`
	Size        int         `json:"size,omitempty"`
	Tier        int         `json:"tier"`
	TierName    string      `json:"tier_name"`
}

// leagueBoard loads the board in the path and the period of its league
// the query names (request.LeaguePeriod).
func (s *Handler) leagueBoard(c echo.Context) (board.Board, board.Period, error) {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return b, board.Period{}, err
	}
	p, _, err := request.LeaguePeriod(&b, c.QueryParam("period"), c.QueryParam("at"), s.opts.Store.Now())
	return b, p, err
}

func (s *Handler) apiLeagues(c echo.Context) error {
	b, p, err := s.leagueBoard(c)
	if err != nil {
		return err
	}
	tiers, err := s.opts.Store.LeagueTiers(c.Request().Context(), &b, p)
	if err != nil {
		return err
	}
	lens := s.opts.Gate.Lens(c, &b)
	if tiers, err = request.ShownTiers(c.Request().Context(), s.opts.Store, lens, p, tiers); err != nil {
		return err
	}
	counts := lens.Counts()
	out := leaguesJSON{Board: b.ID, FrozenSince: s.frozenSince(&b), League: *b.League, Period: toPeriodJSON(p), Tiers: make([]leagueTierJSON, len(tiers))}
	for i, t := range tiers {
		out.Tiers[i] = leagueTierJSON{Tier: t.Tier, Name: t.Name, Cohorts: make([]leagueCohortJSON, len(t.Cohorts))}
		for j, co := range t.Cohorts {
			out.Tiers[i].Cohorts[j].Cohort = co.Cohort
			if counts {
				out.Tiers[i].Cohorts[j].Members = &co.Members
			}
		}
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Handler) apiCohort(c echo.Context) error {
	b, p, err := s.leagueBoard(c)
	if err != nil {
		return err
	}
	tier, err := request.Int(request.Param(c, "tier"), "tier", 0, 0, board.MaxTiers-1) // a bad one: 400 naming it
	if err != nil {
		return err
	}
	cohort, err := request.Int(request.Param(c, "cohort"), "cohort", 1, 1, board.MaxCohort)
	if err != nil {
		return err
	}
	if tier >= len(b.League.Tiers) {
		return apiErr(404, "cohort_not_found", "the league of %q has %d tiers, 0 (%s) to %d (%s)", b.ID, len(b.League.Tiers),
			b.League.Tiers[0], len(b.League.Tiers)-1, b.League.Tiers[len(b.League.Tiers)-1])
	}
	offset, limit, err := pageParams(c)
	if err != nil {
		return err
	}
	lens := s.opts.Gate.Lens(c, &b)
	pg, err := s.opts.Store.CohortPage(c.Request().Context(), &b, p, tier, cohort, offset, limit)
	if err != nil {
		return err
	}
	out, total := groupEntriesJSON(lens, pg)
	return c.JSON(http.StatusOK, cohortPageJSON{Board: b.ID, Cohort: cohort, Entries: out, FrozenSince: s.frozenSince(&b), Offset: offset,
		Period: toPeriodJSON(p), Tier: tier, TierName: b.League.Tiers[tier], Total: total})
}

func (s *Handler) apiMemberLeague(c echo.Context) error {
	b, p, err := s.leagueBoard(c)
	if err != nil {
		return err
	}
	member := request.Param(c, "member")
	if err := board.CheckMember(member); err != nil {
		return err
	}
	lens := s.opts.Gate.Lens(c, &b)
	if !lens.Opens(member) {
		return memberNotFound(member, &b)
	}
	lp, err := s.opts.Store.LeagueOf(c.Request().Context(), &b, p, member)
	if err != nil {
		return err
	}
	out := memberLeagueJSON{Board: b.ID, FrozenSince: s.frozenSince(&b), Member: member, Period: toPeriodJSON(p),
		Placed: lp.Placed, Tier: lp.Tier, TierName: lp.TierName}
	if lp.Placed {
		out.Cohort, out.Size = lp.Cohort, lens.Total(lp.Size)
	}
	if st := lp.Standing; lp.Placed && st.Ranked {
		out.Ranked, out.Rank = true, st.Rank
		out.Score, out.Shown = json.Number(b.Format.Number(st.Score)), b.Format.Display(st.Score)
	}
	// A closed period's result, once its close ran; not while the board is
	// frozen (the close reads the live standings the freeze hides).
	if p.Ended(s.opts.Store.Now()) && out.FrozenSince == nil {
		rs, err := s.opts.Store.LeagueResultsOf(c.Request().Context(), &b, p, []string{member})
		if err != nil {
			return err
		}
		if r, ok := rs[member]; ok {
			next := r.Next
			out.Move, out.Next, out.NextName = r.Move.String(), &next, b.League.TierName(r.Next)
		}
	}
	return c.JSON(http.StatusOK, out)
}
