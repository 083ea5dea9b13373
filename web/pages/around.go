package pages

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
	"podium/web/templates"
)

const defaultRadius = 5

// aroundPage shows the members just above and below one member.
func (s *Handler) aroundPage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	p, current, err := s.periodOf(c, &b)
	if err != nil {
		return err
	}
	k, err := request.Int(c.QueryParam("k"), "k", defaultRadius, 1, 25)
	if err != nil {
		return err
	}
	member := request.Param(c, "member")
	if err := board.CheckMember(member); err != nil {
		return invalidMember(err)
	}
	label := p.Title()
	lens := s.opts.Gate.Lens(c, &b)
	notHere := func(err error) error {
		return request.ProblemOf(err, "Not on this board", fmt.Sprintf("“%s” has no score in %s of %s.", member, label, b.Title),
			templates.Link{Label: "Back to " + b.Title, Href: boardURL(b.ID, p, current, 1, 0, "")},
			templates.Link{Label: "Their other periods", Href: memberURL(b.ID, member)})
	}
	if !lens.Opens(member) { // another member's, where the privacy mode or a personal link keeps them
		return notHere(board.ErrNotFound)
	}
	pg, pos, err := s.opts.Store.Around(c.Request().Context(), &b, p, member, k)
	if errors.Is(err, board.ErrNotFound) {
		return notHere(err)
	}
	if err != nil {
		return err
	}
	me := pg.Entries[pos-pg.Offset]
	headline := fmt.Sprintf("%s of %s in %s · %s", templates.Ordinal(me.Rank), templates.Group(pg.Total), label, b.Format.Display(me.Score))
	if !lens.Counts() {
		headline = fmt.Sprintf("%s in %s · %s", templates.Ordinal(me.Rank), label, b.Format.Display(me.Score))
	}
	boardPage := pos/defaultSize + 1
	if !lens.Shows(pos, "") {
		boardPage = 1 // their own place beyond the top shown: the board opens on the top
	}
	v := templates.AroundView{
		BoardTitle:  b.Title,
		BoardHref:   boardURL(b.ID, p, current, boardPage, 0, ""),
		Name:        me.Name,
		MemberHref:  memberURL(b.ID, member),
		Headline:    headline,
		PeriodTitle: label,
		Uncounted:   !lens.Counts(),
		Table:       tableOf(lens, pg.Entries, member, "Around "+me.Name+" in "+label),
		Live: templates.LiveInfo{Period: string(p.Kind), MemberHref: "/b/" + url.PathEscape(b.ID) + "/m/", Me: member,
			Frozen: rows.FrozenNotice(&b, s.opts.Store.Now(), false)},
	}
	if !current {
		v.Live.Key = p.Key
		v.Live.Closed = p.Ended(s.opts.Store.Now()) // not a future period asked for by key
	}
	if s.opts.Live != nil {
		v.Live.Query = liveQuery(b.ID, p, current, url.Values{"member": {member}, "radius": {strconv.Itoa(k)}})
	}
	v.Tabs = s.tabs(&b, p.Kind, func(x board.Period) string {
		return aroundURL(b.ID, member, x, true) + "&k=" + url.QueryEscape(fmt.Sprint(k))
	})
	return request.Render(c, 200, templates.Page(me.Name+" · "+b.Title, templates.AroundPage(v)))
}
