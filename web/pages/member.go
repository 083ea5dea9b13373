package pages

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/web/request"
	"podium/web/templates"
)

// memberPage shows a member's rank and score in every period of a board.
func (s *Handler) memberPage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	member := request.Param(c, "member")
	if err := board.CheckMember(member); err != nil {
		return request.BadRequest("That member id is not valid: " + request.Reason(err))
	}
	sts, err := s.opts.Store.Member(c.Request().Context(), &b, member)
	if err != nil {
		return err
	}
	v := templates.MemberView{BoardTitle: b.Title, BoardHref: "/b/" + b.ID, Member: member, Name: member}
	ranked := false
	for _, st := range sts {
		mp := templates.MemberPeriod{Label: templates.TabLabel(st.Period.Kind), Key: st.Period.Key, Ranked: st.Ranked}
		if st.Name != "" {
			v.Name = st.Name
		}
		if st.Ranked {
			ranked = true
			mp.Rank = templates.Ordinal(st.Rank)
			mp.Score = b.Format.Display(st.Score)
			mp.Of = templates.Group(st.Total)
			mp.Percentile = fmt.Sprintf("%.0f%%", st.Percentile())
			mp.AroundHref = aroundURL(b.ID, member, st.Period, true)
		}
		v.Periods = append(v.Periods, mp)
	}
	if !ranked && v.Name == member {
		return request.NotFound("Member not found", fmt.Sprintf("“%s” has no score on %s right now.", member, b.Title),
			templates.Link{Label: "Back to " + b.Title, Href: v.BoardHref}, request.HomeLink)
	}
	return request.Render(c, 200, templates.Page(v.Name+" · "+b.Title, templates.MemberPage(v)))
}
