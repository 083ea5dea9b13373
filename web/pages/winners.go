package pages

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/archive"
	"podium/board"
	"podium/web/request"
	"podium/web/templates"
)

// History is what the archive tells about closed periods.
type History interface {
	Winners(ctx context.Context, boardID string, kind board.Kind, offset, limit int) ([]archive.PeriodTop, int, error)
	History(ctx context.Context, boardID, member string, kind board.Kind, limit int) ([]archive.Standing, error)
}

// closingKind is the kind of period past winners and histories show: the
// board's default, or its first kind that closes; "" when none does (all
// time and rolling windows never close).
func closingKind(b *board.Board) board.Kind {
	if b.DefaultPeriod.Calendar() {
		return b.DefaultPeriod
	}
	for _, k := range b.Periods {
		if k.Calendar() {
			return k
		}
	}
	return ""
}

const winnersPerPage = 24

// winners lists the top three of each closed period of one kind: the board's
// default kind unless ?period= names another.
func (s *Handler) winners(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	kind := closingKind(&b)
	if k := c.QueryParam("period"); k != "" {
		pk, err := board.ParseKind(k)
		if err != nil || !b.Enabled(pk) || !pk.Calendar() {
			return request.NotFound("No such past periods", fmt.Sprintf("%s keeps no closed periods of kind “%s”.", b.Title, k),
				templates.Link{Label: "Past winners", Href: winnersURL(b.ID, "", 1)})
		}
		kind = pk
	}
	page, err := request.Int(c.QueryParam("page"), "page", 1, 1, 100_000)
	if err != nil {
		return err
	}
	v := templates.WinnersView{Title: b.Title, BoardHref: "/b/" + url.PathEscape(b.ID), Kind: kindPlural(&b, kind)}
	for _, k := range b.Periods {
		if k.Calendar() {
			label := kindPlural(&b, k)
			v.Tabs = append(v.Tabs, templates.Link{Label: strings.ToUpper(label[:1]) + label[1:], Href: winnersURL(b.ID, k, 1), Current: k == kind})
		}
	}
	if kind == "" { // only all time and windows: nothing ever closes
		return request.Render(c, 200, templates.Page("Past winners · "+b.Title, templates.Winners(v)))
	}
	tops, total, err := s.opts.History.Winners(c.Request().Context(), b.ID, kind, (page-1)*winnersPerPage, winnersPerPage)
	if err != nil {
		return err
	}
	lens := s.opts.Gate.Lens(c, &b)
	for _, t := range tops {
		_, key, _ := strings.Cut(t.Period, ":")
		p, err := b.PeriodOf(kind, key)
		if err != nil || s.secret(&b, p) {
			continue
		}
		meta := templates.Group(t.Members) + " " + templates.Plural(t.Members, "member", "members")
		if !lens.Counts() {
			meta = "" // how many there were is no business of a reader shown only the top
		}
		v.Cards = append(v.Cards, templates.Card{
			Title: p.Title(),
			Href:  boardURL(b.ID, p, false, 1, 0, ""),
			Meta:  meta,
			Rows:  tableOf(lens, t.Top, "", "").Rows,
		})
	}
	pages := max(1, (total+winnersPerPage-1)/winnersPerPage)
	if page > pages {
		return request.NotFound("No such page", fmt.Sprintf("There are %d pages of past winners.", pages),
			templates.Link{Label: "Past winners", Href: winnersURL(b.ID, kind, 1)})
	}
	v.PageLabel = fmt.Sprintf("Page %d of %d", page, pages)
	if page > 1 {
		v.Newer = winnersURL(b.ID, kind, page-1)
	}
	if page < pages {
		v.Older = winnersURL(b.ID, kind, page+1)
	}
	return request.Render(c, 200, templates.Page("Past winners · "+b.Title, templates.Winners(v)))
}

func winnersURL(id string, k board.Kind, page int) string {
	q := url.Values{}
	if k != "" {
		q.Set("period", string(k))
	}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	u := "/b/" + url.PathEscape(id) + "/winners"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// kindPlural names closed periods of kind k of board b: "weeks", or a
// custom period's name as the board calls it, in the plural by English
// rules: "rounds", "matches", "GPs".
func kindPlural(b *board.Board, k board.Kind) string {
	if k == board.Custom {
		return pluralName(templates.LowerName(b.Sched().Name))
	}
	return map[board.Kind]string{board.Daily: "days", board.Weekly: "weeks", board.Monthly: "months", board.Yearly: "years"}[k]
}

// pluralName is a name's English plural, by the common rules.
func pluralName(s string) string {
	lower := strings.ToLower(s)
	switch {
	case strings.HasSuffix(lower, "s"), strings.HasSuffix(lower, "x"), strings.HasSuffix(lower, "z"),
		strings.HasSuffix(lower, "ch"), strings.HasSuffix(lower, "sh"):
		return s + "es"
	case len(s) > 1 && strings.HasSuffix(lower, "y") && !strings.ContainsRune("aeiou", rune(lower[len(lower)-2])):
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}

// secret reports whether an archived period's results are still the
// freeze's secret: the board is frozen and the period ended after the
// freeze (the archiver copies the live standings, writes after the freeze
// included), so the public must not see them before the reveal.
func (s *Handler) secret(b *board.Board, p board.Period) bool {
	since, frozen := b.FrozenSince(s.opts.Store.Now())
	return frozen && p.End.After(since)
}
