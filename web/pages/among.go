package pages

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/live"
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
		return s.renderAmong(c, &b, v, nil, "", func(p board.Period) string { return amongURL(b.ID, p, nil) })
	}
	members, err := board.CheckMembers("members", ids, board.MaxRankMembers)
	if err != nil {
		return request.ProblemOf(err, "That request is not valid", request.Reason(err))
	}
	v.Members = strings.Join(members, ", ")
	return s.renderAmong(c, &b, v, members, "", func(p board.Period) string { return amongURL(b.ID, p, members) })
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
		return memberNotFound(&b, member)
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
	return s.renderAmong(c, &b, v, members, member, func(p board.Period) string {
		return memberURL(b.ID, member) + "/friends?" + periodQuery(p, true)
	})
}

// renderAmong reads members' standings in the asked period and renders
// the page, live when the list is short enough and the reader sees the
// board whole; me is the member a friends page is about ("" none).
func (s *Handler) renderAmong(c echo.Context, b *board.Board, v templates.AmongView, members []string, me string, link func(board.Period) string) error {
	p, current, err := s.periodOf(c, b)
	if err != nil {
		return err
	}
	lens := s.opts.Gate.Lens(c, b)
	v.BoardTitle, v.BoardHref, v.PeriodTitle = b.Title, boardURL(b.ID, p, current, 1, 0, ""), p.Title()
	v.Tabs = s.tabs(b, p.Kind, link)
	v.Asked = len(members) > 0
	v.Table = templates.Table{Label: v.Heading + ", " + p.Title(), Fields: []string{"Overall"}}
	v.Live = templates.LiveInfo{Period: string(p.Kind), MemberHref: "/b/" + url.PathEscape(b.ID) + "/m/", Me: me,
		Frozen: rows.FrozenNotice(b, s.opts.Store.Now(), false)}
	if !current {
		v.Live.Key = p.Key
		v.Live.Closed = p.Ended(s.opts.Store.Now())
	}
	if len(members) > 0 {
		listed, _, err := request.ReadAmong(c.Request().Context(), s.opts.Store, lens, p, members)
		if err != nil {
			return err
		}
		v.Table.Rows = amongRows(b, board.AmongEntries(listed), me)
		for _, l := range listed {
			if !l.Ranked {
				v.Unranked = append(v.Unranked, l.Name)
			}
		}
		if s.opts.Live != nil && len(members) <= live.MaxListMembers && listShown(lens, members) {
			v.Live.Query = liveQuery(b.ID, p, current, url.Values{"list": members})
		}
	}
	return request.Render(c, 200, templates.Page(v.Heading+" · "+b.Title, templates.AmongPage(v)))
}

// amongRows are a list's ranked members as table rows, through the same
// builder as the live frames (rows.Of), so the page and its updates agree.
func amongRows(b *board.Board, entries []board.Entry, me string) []templates.Row {
	out := make([]templates.Row, 0, len(entries))
	for _, r := range rows.Of(b, entries) {
		out = append(out, templates.Row{Rank: r.Rank, Tied: r.Tied, Member: r.Member, Name: r.Name, Score: r.Score, Fields: r.Fields,
			Href: memberURL(b.ID, r.Member), Me: me != "" && r.Member == me})
	}
	return out
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
