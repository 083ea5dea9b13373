package pages

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
	"podium/web/templates"
)

// amongPage shows where the members named in the address stand among
// themselves and on the board: ?member= repeated, or the form's
// comma-separated ?members=.
func (s *Handler) amongPage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	ids := c.QueryParams()["member"]
	for _, field := range strings.Split(c.QueryParam("members"), ",") {
		if id := strings.TrimSpace(field); id != "" {
			ids = append(ids, id)
		}
	}
	v := templates.AmongView{Heading: "Compare members", Form: true,
		Lede: "Where each stands among the others, and on the whole board."}
	if len(ids) == 0 {
		return s.renderAmong(c, &b, v, nil, func(p board.Period) string { return amongURL(b.ID, p, nil) })
	}
	members, err := board.CheckMembers("members", ids, board.MaxRankMembers)
	if err != nil {
		return request.ProblemOf(err, "That request is not valid", request.Reason(err))
	}
	v.Members = strings.Join(members, ", ")
	return s.renderAmong(c, &b, v, members, func(p board.Period) string { return amongURL(b.ID, p, members) })
}

// friendsPage shows a member among the friends the board keeps for them.
func (s *Handler) friendsPage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	member := request.Param(c, "member")
	if err := board.CheckMember(member); err != nil {
		return invalidMember(err)
	}
	lens := s.opts.Gate.Lens(c, &b)
	if !lens.Opens(member) { // another member's, where the privacy mode or a personal link keeps them
		return request.NotFound("Member not found", fmt.Sprintf("“%s” has no score on %s right now.", member, b.Title),
			templates.Link{Label: "Back to " + b.Title, Href: "/b/" + b.ID}, request.HomeLink)
	}
	fs, err := s.opts.Store.Friends(c.Request().Context(), &b, member)
	if err != nil {
		return err
	}
	members := []string{member}
	for _, f := range fs {
		if lens.Opens(f) { // a personal link sees no other member
			members = append(members, f)
		}
	}
	v := templates.AmongView{Heading: "Among friends", Lede: fmt.Sprintf("%s and the %d friends %s keeps for them.", member, len(members)-1, b.Title)}
	if len(fs) == 0 {
		v.Lede = fmt.Sprintf("%s keeps no friends for %s yet: a game sets them through the API.", b.Title, member)
	}
	return s.renderAmong(c, &b, v, members, func(p board.Period) string {
		return memberURL(b.ID, member) + "/friends?" + periodQuery(p, true)
	})
}

// renderAmong reads members' standings in the asked period and renders
// the page; the first member is "me" on a friends page.
func (s *Handler) renderAmong(c echo.Context, b *board.Board, v templates.AmongView, members []string, link func(board.Period) string) error {
	p, current, err := s.periodOf(c, b)
	if err != nil {
		return err
	}
	lens := s.opts.Gate.Lens(c, b)
	v.BoardTitle, v.BoardHref, v.PeriodTitle = b.Title, boardURL(b.ID, p, current, 1, 0, ""), p.Title()
	v.Frozen = rows.FrozenNotice(b, s.opts.Store.Now(), false)
	v.Tabs = s.tabs(b, p.Kind, link)
	if len(members) > 0 {
		listed, _, err := request.ReadAmong(c.Request().Context(), s.opts.Store, lens, p, members)
		if err != nil {
			return err
		}
		for i, l := range listed {
			r := templates.AmongRow{Member: l.Member, Name: l.Name, Ranked: l.Ranked, Me: !v.Form && l.Member == members[0]}
			if l.Ranked {
				r.ListRank, r.Rank, r.Score = templates.Ordinal(l.ListRank), templates.Ordinal(l.Rank), b.Format.Display(l.Score)
				r.Tied = (i > 0 && listed[i-1].Ranked && listed[i-1].ListRank == l.ListRank) ||
					(i+1 < len(listed) && listed[i+1].Ranked && listed[i+1].ListRank == l.ListRank)
				r.Href = memberURL(b.ID, l.Member)
			}
			v.Rows = append(v.Rows, r)
		}
	}
	return request.Render(c, 200, templates.Page(v.Heading+" · "+b.Title, templates.AmongPage(v)))
}

// amongURL is the compare page of members in period p.
func amongURL(id string, p board.Period, members []string) string {
	q := url.Values{}
	for _, m := range members {
		q.Add("member", m)
	}
	out := "/b/" + url.PathEscape(id) + "/among?" + periodQuery(p, true)
	if len(q) > 0 {
		out += "&" + q.Encode()
	}
	return out
}
