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

// The league pages: a board's league in a period (its tiers, highest
// first, with their cohorts) and one cohort's standing, live. A cohort's
// standing is a group standing like a segment's (board.CohortSegment), so
// it is read, shown and followed live as a segment's page is.

// Leagues is what the league pages read of the board engine
// (redisstore/league.go).
type Leagues interface {
	LeagueTiers(ctx context.Context, b *board.Board, p board.Period) ([]board.LeagueTier, error)
	CohortPage(ctx context.Context, b *board.Board, p board.Period, tier, cohort, offset, limit int) (board.Page, error)
	LeagueOf(ctx context.Context, b *board.Board, p board.Period, member string) (board.LeaguePlace, error)
	LeagueResultsOf(ctx context.Context, b *board.Board, p board.Period, members []string) (map[string]board.LeagueResult, error)
	TopCohorts(ctx context.Context, b *board.Board, p board.Period, n int, also ...string) (map[string]bool, error)
}

func leaguesURL(id string, p board.Period, current bool) string {
	return "/b/" + url.PathEscape(id) + "/leagues?" + periodQuery(p, current)
}

func cohortURL(id string, tier, cohort int, p board.Period, current bool, page int) string {
	v := periodValues(p, current)
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	return fmt.Sprintf("/b/%s/leagues/%d/%d?%s", url.PathEscape(id), tier, cohort, v.Encode())
}

func cohortLabel(cohort int) string { return "Cohort " + templates.Group(cohort) }

// leagueNouns are a league kind's adjective and noun: "weekly", "week".
func leagueNouns(k board.Kind) (string, string) {
	switch k {
	case board.Daily:
		return "daily", "day"
	case board.Monthly:
		return "monthly", "month"
	case board.Yearly:
		return "yearly", "year"
	}
	return "weekly", "week"
}

// leagueRules says a league's rules for people: "A weekly league in 3
// tiers, cohorts of up to 30. When a week closes, the top 3 of each
// cohort move up a tier and the bottom 3 move down."
func leagueRules(l *board.League) string {
	adj, noun := leagueNouns(l.Kind)
	var moves []string
	if l.Promote > 0 {
		moves = append(moves, fmt.Sprintf("the top %d of each cohort move up a tier", l.Promote))
	}
	if l.Relegate > 0 {
		moves = append(moves, fmt.Sprintf("the bottom %d move down", l.Relegate))
	}
	if len(moves) == 0 {
		moves = append(moves, "everyone keeps their tier")
	}
	out := fmt.Sprintf("A %s league in %d tiers, cohorts of up to %s. When a %s closes, %s.", adj, len(l.Tiers), templates.Group(l.Size()), noun, strings.Join(moves, " and "))
	if l.IdleDrops {
		out += " Members who did not play drop a tier."
	}
	return out
}

// cohortRules says what a period's close does to a cohort of tier t:
// "When the week closes, the top 1 move up to Silver and the bottom 1 move
// down to Bronze." No one goes above the top tier or below the lowest.
func cohortRules(l *board.League, t int) string {
	_, noun := leagueNouns(l.Kind)
	var moves []string
	if l.Promote > 0 && t+1 < len(l.Tiers) {
		moves = append(moves, fmt.Sprintf("the top %d move up to %s", l.Promote, l.Tiers[t+1]))
	}
	if l.Relegate > 0 && t > 0 {
		moves = append(moves, fmt.Sprintf("the bottom %d move down to %s", l.Relegate, l.Tiers[t-1]))
	}
	if len(moves) == 0 {
		return fmt.Sprintf("When the %s closes, everyone in %s keeps their tier.", noun, l.Tiers[t])
	}
	out := fmt.Sprintf("When the %s closes, %s.", noun, strings.Join(moves, " and "))
	if l.IdleDrops && t > 0 {
		out += " Members who did not play drop a tier."
	}
	return out
}

// leagueBoard loads the board in the path and the period of its league
// the query names (request.LeaguePeriod).
func (s *Handler) leagueBoard(c echo.Context) (board.Board, board.Period, bool, error) {
	b, err := s.loadBoard(c)
	if err != nil {
		return b, board.Period{}, false, err
	}
	p, current, err := request.LeaguePeriod(&b, c.QueryParam("period"), c.QueryParam("at"), s.opts.Store.Now())
	return b, p, current, err
}

// leaguesPage is a board's league in a period: its tiers, highest first,
// each with its cohorts (and, where the reader is told counts, their
// members); a personal link's reader sees their own league above.
func (s *Handler) leaguesPage(c echo.Context) error {
	b, p, current, err := s.leagueBoard(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	tiers, err := s.opts.Store.LeagueTiers(ctx, &b, p)
	if errors.Is(err, board.ErrGone) {
		return leagueGone(err, &b, p, current)
	}
	if err != nil {
		return err
	}
	lens := s.opts.Gate.Lens(c, &b)
	if tiers, err = request.ShownTiers(ctx, s.opts.Store, lens, p, tiers); err != nil {
		return err
	}
	v := templates.LeaguesView{Title: b.Title, BoardHref: boardURL(b.ID, p, current, 1, 0, ""), Rules: leagueRules(b.League),
		PeriodTitle: p.Title(), Kind: string(p.Kind), Frozen: rows.FrozenNotice(&b, s.opts.Store.Now(), false)}
	v.Prev, v.Next = s.neighbours(&b, p, func(x board.Period, cur bool) string { return leaguesURL(b.ID, x, cur) })
	var mine board.LeaguePlace
	if me := lens.Sight.Me; me != "" {
		if mine, err = s.opts.Store.LeagueOf(ctx, &b, p, me); err != nil {
			return err
		}
		m := memberLeagueView(lens, mine, p, current, "Your league")
		v.Mine = &m
	}
	counts := lens.Counts()
	for i := len(tiers) - 1; i >= 0; i-- {
		t := tiers[i]
		tv := templates.LeagueTierView{Name: t.Name, Place: fmt.Sprintf("Tier %d of %d", t.Tier+1, len(tiers)),
			Empty: "Nobody in " + t.Name + " has played in " + p.Title() + " yet."}
		if !counts {
			tv.Empty = "Nobody in " + t.Name + " is among the places shown in " + p.Title() + "."
		}
		members := 0
		for _, co := range t.Cohorts {
			members += co.Members
			tv.Cohorts = append(tv.Cohorts, templates.Link{Label: cohortLabel(co.Cohort), Href: cohortURL(b.ID, t.Tier, co.Cohort, p, current, 1),
				Current: mine.Placed && mine.Tier == t.Tier && mine.Cohort == co.Cohort})
			n := ""
			if counts {
				n = templates.Group(co.Members) + " " + templates.Plural(co.Members, "member", "members")
			}
			tv.Members = append(tv.Members, n)
		}
		if len(t.Cohorts) > 0 {
			tv.Summary = templates.Group(len(t.Cohorts)) + " " + templates.Plural(len(t.Cohorts), "cohort", "cohorts")
		}
		if counts && members > 0 {
			tv.Summary += " · " + templates.Group(members) + " " + templates.Plural(members, "member", "members")
		}
		v.Tiers = append(v.Tiers, tv)
	}
	return request.Render(c, 200, templates.Page("League · "+b.Title, templates.LeaguesPage(v)))
}

// cohortPage is one cohort's standing in a period, a page at a time,
// live: ranked within the cohort, each row's rank on the period beside.
// A reader shown only the board's top sees the cohort's members among it,
// as a segment's page shows them (segmentRows).
func (s *Handler) cohortPage(c echo.Context) error {
	b, p, current, err := s.leagueBoard(c)
	if err != nil {
		return err
	}
	l := b.League
	tier, err := request.Int(request.Param(c, "tier"), "tier", 0, 0, board.MaxTiers-1)
	if err != nil {
		return err
	}
	cohort, err := request.Int(request.Param(c, "cohort"), "cohort", 1, 1, board.MaxCohort)
	if err != nil {
		return err
	}
	back := templates.Link{Label: b.Title + ": league", Href: leaguesURL(b.ID, p, current)}
	if tier >= len(l.Tiers) {
		return request.NotFound("No such tier", fmt.Sprintf("The league of %s has %d tiers.", b.Title, len(l.Tiers)), back)
	}
	page, err := request.Int(c.QueryParam("page"), "page", 1, 1, 1_000_000)
	if err != nil {
		return err
	}
	lens := s.opts.Gate.Lens(c, &b)
	table := lens // what the live view shows every reader of the shared surfaces
	table.Sight.Me = ""
	offset, limit := (page-1)*defaultSize, defaultSize
	if !table.Counts() {
		offset, limit = 0, b.TopOnly
	}
	pg, err := s.opts.Store.CohortPage(c.Request().Context(), &b, p, tier, cohort, offset, limit)
	if errors.Is(err, board.ErrGone) {
		return leagueGone(err, &b, p, current)
	}
	if err != nil {
		return err
	}
	shown, total := table.SegmentEntries(pg.Entries), pg.Total
	if !table.Counts() {
		total = len(shown)
		shown = shown[min((page-1)*defaultSize, total):min(page*defaultSize, total)]
	}
	name := l.Tiers[tier] + ", " + strings.ToLower(cohortLabel(cohort))
	pages := max(1, (total+defaultSize-1)/defaultSize)
	if page > pages {
		return request.NotFound("Page not found", fmt.Sprintf("%s of %s has %d %s in %s.", name, b.Title, pages, templates.Plural(pages, "page", "pages"), p.Title()),
			templates.Link{Label: "First page", Href: cohortURL(b.ID, tier, cohort, p, current, 1)})
	}
	_, noun := leagueNouns(l.Kind)
	v := templates.CohortView{BoardTitle: b.Title, LeaguesHref: back.Href, Tier: l.Tiers[tier], Cohort: cohortLabel(cohort), Rules: cohortRules(l, tier),
		PeriodTitle: p.Title(), Note: "Ranked within the cohort; “Board” is the rank on the whole board in the " + noun + ".",
		Table: segmentTable(table, shown, b.Title+", "+name+", "+p.Title()), Total: total, Privacy: privacyNote(lens),
		Empty: "Nobody in " + name + " has a score in " + p.Title() + " yet.",
		Live:  templates.LiveInfo{Period: string(p.Kind), MemberHref: "/b/" + url.PathEscape(b.ID) + "/m/", Frozen: rows.FrozenNotice(&b, s.opts.Store.Now(), false)},
	}
	if !current {
		v.Live.Key = p.Key
		v.Live.Closed = p.Ended(s.opts.Store.Now())
	}
	if _, frozen := b.FrozenSince(s.opts.Store.Now()); v.Live.Closed && !frozen { // the close reads the live standings a freeze hides
		if v.Moves, err = s.cohortMoves(c.Request().Context(), &b, p, table, pg.Entries); err != nil {
			return err
		}
	}
	if s.opts.Live != nil {
		v.Live.Query = liveQuery(b.ID, p, current, url.Values{"offset": {strconv.Itoa((page - 1) * defaultSize)}, "limit": {strconv.Itoa(defaultSize)},
			"segment": {board.CohortSegment(tier, cohort).String()}})
	}
	v.Prev, v.Next = s.neighbours(&b, p, func(x board.Period, cur bool) string { return cohortURL(b.ID, tier, cohort, x, cur, 1) })
	if page > 1 {
		v.PrevPage = cohortURL(b.ID, tier, cohort, p, current, page-1)
	}
	if page < pages {
		v.NextPage = cohortURL(b.ID, tier, cohort, p, current, page+1)
	}
	v.PageLabel = fmt.Sprintf("Page %d of %d", page, pages)
	return request.Render(c, 200, templates.Page(l.Tiers[tier]+" "+cohortLabel(cohort)+" · "+b.Title, templates.CohortPage(v)))
}

// leagueGone says that a closed period's league left Redis with its
// keys, and that the archive's copy keeps no cohorts (one made before
// they were kept): the whole board's page of
// the period still shows it, and the league's current period is there.
func leagueGone(err error, b *board.Board, p board.Period, current bool) *request.Problem {
	return request.ProblemOf(err, "This period's league is no longer kept",
		fmt.Sprintf("%s on %s has closed and moved to the archive, whose copy of it keeps the whole board's standings but not its league cohorts (it was archived before they were kept).", p.Title(), b.Title),
		templates.Link{Label: "The whole board in " + p.Title(), Href: boardURL(b.ID, p, current, 1, 0, "")},
		templates.Link{Label: "The league now", Href: "/b/" + url.PathEscape(b.ID) + "/leagues"})
}

// memberLeagueView is a member's league in period p for the member page
// and a personal link's league page: "of N" where the reader is told
// counts.
func memberLeagueView(lens rows.Lens, lp board.LeaguePlace, p board.Period, current bool, heading string) templates.MemberLeague {
	b := lens.Board
	m := templates.MemberLeague{Heading: heading, PeriodTitle: p.Title(), Tier: lp.TierName}
	if !lp.Placed {
		return m
	}
	m.Cohort, m.Href = cohortLabel(lp.Cohort), cohortURL(b.ID, lp.Tier, lp.Cohort, p, current, 1)
	if st := lp.Standing; st.Ranked {
		m.Rank = templates.Ordinal(st.Rank)
		if lens.Counts() {
			m.Of = templates.Group(st.Total)
		}
	}
	return m
}

// memberLeague is the member page's league: the member's in the league's
// current period, with a link to the league.
func (s *Handler) memberLeague(ctx context.Context, lens rows.Lens, member string) (*templates.MemberLeague, error) {
	b := lens.Board
	if b.League == nil {
		return nil, nil
	}
	p := b.Current(b.League.Kind, s.opts.Store.Now())
	lp, err := s.opts.Store.LeagueOf(ctx, b, p, member)
	if err != nil {
		return nil, err
	}
	heading := "League"
	if lens.Sight.Me == member {
		heading = "Your league"
	}
	m := memberLeagueView(lens, lp, p, true, heading)
	m.LeaguesHref = leaguesURL(b.ID, p, true)
	return &m, nil
}

// cohortMoves says what the close of p did to the members of a closed
// period's cohort page es that the reader sees (as the table names them):
// who went up, who went down. None before the close.
func (s *Handler) cohortMoves(ctx context.Context, b *board.Board, p board.Period, lens rows.Lens, es []board.Entry) ([]templates.LeagueMoves, error) {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.Member
	}
	rs, err := s.opts.Store.LeagueResultsOf(ctx, b, p, ids)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	var up, down templates.LeagueMoves
	up.Move, down.Move = "up", "down"
	for _, e := range es {
		r, ok := rs[e.Member]
		if !ok || !lens.Shows(e.GlobalPosition, e.Member) {
			continue
		}
		name := lens.Name(e.Member, e.Name)
		switch r.Move {
		case board.Up:
			up.To, up.Names = b.League.TierName(r.Next), append(up.Names, name)
		case board.Down:
			down.To, down.Names = b.League.TierName(r.Next), append(down.Names, name)
		}
	}
	var out []templates.LeagueMoves
	for _, m := range []templates.LeagueMoves{up, down} {
		if len(m.Names) > 0 {
			out = append(out, m)
		}
	}
	return out, nil
}
