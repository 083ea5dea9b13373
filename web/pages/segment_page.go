package pages

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"podium/board"
	"podium/rows"
	"podium/web/request"
	"podium/web/templates"
)

// A board page filtered to one segment (?segment=country:NO, the API's
// syntax): the period's standing of the members holding that value, ranked
// among themselves, with their rank on the whole board beside ("Board").

// withSegment adds a segment's filter to a board page's URL.
func withSegment(u string, seg board.Segment) string {
	if seg.IsZero() {
		return u
	}
	return u + "&segment=" + url.QueryEscape(seg.String())
}

// segmentLabel names a segment for people: "country NO".
func segmentLabel(seg board.Segment) string { return seg.Attr + " " + seg.Value }

// segmentRows fills v with one page of segment seg's standing in period p,
// and the links to its neighbouring pages. A reader shown only the board's
// top sees the segment's members among it: the segment's top is read
// whole (no member further down the segment can be among the board's top),
// then the page's part, as the live view does.
func (s *Handler) segmentRows(ctx context.Context, lens rows.Lens, p board.Period, seg board.Segment, at pageAt, v *templates.BoardView) error {
	b := lens.Board
	offset, limit := (at.page-1)*at.size, at.size
	if !lens.Counts() {
		offset, limit = 0, b.TopOnly
	}
	pg, err := s.opts.Store.SegmentPage(ctx, b, p, seg, offset, limit)
	if errors.Is(err, board.ErrGone) {
		return segmentGone(b, p, seg, at.current, err)
	}
	if err != nil {
		return err
	}
	shown, total := lens.SegmentEntries(pg.Entries), pg.Total
	if !lens.Counts() {
		total = len(shown)
		shown = shown[min((at.page-1)*at.size, total):min(at.page*at.size, total)]
	}
	pages := max(1, (total+at.size-1)/at.size)
	link := func(page int) string { return withSegment(boardURL(b.ID, p, at.current, page, at.size, ""), seg) }
	if at.page > pages {
		return request.NotFound("Page not found", fmt.Sprintf("%s of %s has %d %s in %s at %d a page.", segmentLabel(seg), b.Title, pages,
			templates.Plural(pages, "page", "pages"), p.Title(), at.size), templates.Link{Label: "First page", Href: link(1)})
	}
	v.Total = total
	v.Table = segmentTable(lens, shown, b.Title+", "+p.Title()+", "+segmentLabel(seg))
	v.Empty = "Nobody in " + segmentLabel(seg) + " has a score in " + p.Title() + " yet."
	v.PageLabel = fmt.Sprintf("Page %d of %d", at.page, pages)
	if at.page > 1 {
		v.PrevPage = link(at.page - 1)
	}
	if at.page < pages {
		v.NextPage = link(at.page + 1)
	}
	return nil
}

// segmentTable is tableOf for a segment's rows, already what the reader
// may see (rows.Lens.SegmentEntries): the board's fields, then "Board",
// each row's rank on the whole period, through the same builder as the
// live frames (rows.Segmented).
func segmentTable(l rows.Lens, shown []board.Entry, label string) templates.Table {
	b := l.Board
	t := templates.Table{Label: label}
	for _, f := range b.Fields {
		t.Fields = append(t.Fields, f.Name)
	}
	t.Fields = append(t.Fields, "Board")
	for _, r := range rows.Of(b, rows.Segmented(shown)) {
		row := templates.Row{Rank: r.Rank, Tied: r.Tied, Member: r.Member, Name: r.Name, Score: r.Score, Fields: r.Fields}
		if !r.Masked && l.Opens(r.Member) {
			row.Href = memberURL(b.ID, r.Member)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// segmentGone says that a closed period's segment standings left Redis
// with its keys, and that the archive keeps none yet: the whole board's
// page of the period still shows it.
func segmentGone(b *board.Board, p board.Period, seg board.Segment, current bool, err error) error {
	return request.ProblemOf(err, "This segment's standing is no longer kept",
		fmt.Sprintf("%s on %s has closed and moved to the archive, which keeps the whole board's standings but not those of %s.",
			p.Title(), b.Title, segmentLabel(seg)),
		templates.Link{Label: "The whole board in " + p.Title(), Href: boardURL(b.ID, p, current, 1, 0, "")}, request.HomeLink)
}

// segmentFilter is the board page's picker of segments: every value of
// each of the board's attributes (with how many members hold it, where the
// reader is told counts), the one shown selected, and the query to keep.
func (s *Handler) segmentFilter(ctx context.Context, lens rows.Lens, p board.Period, seg board.Segment, current bool, size int) (*templates.SegmentFilter, error) {
	b := lens.Board
	if len(b.Segments) == 0 {
		return nil, nil
	}
	f := &templates.SegmentFilter{Current: seg.String(), Clear: boardURL(b.ID, p, current, 1, size, "")}
	if !seg.IsZero() {
		f.Label = segmentLabel(seg)
	}
	f.Hidden = append(f.Hidden, templates.Link{Label: "period", Href: string(p.Kind)})
	if !current && p.Kind.Calendar() {
		f.Hidden = append(f.Hidden, templates.Link{Label: "at", Href: p.Key})
	}
	if size != defaultSize {
		f.Hidden = append(f.Hidden, templates.Link{Label: "size", Href: strconv.Itoa(size)})
	}
	for _, a := range b.Segments {
		vals, err := s.opts.Store.SegmentValues(ctx, b, a)
		if err != nil {
			return nil, err
		}
		g := templates.SegmentGroup{Attr: a}
		found := false
		for _, val := range vals {
			o := templates.SegmentOption{Value: a + ":" + val.Value, Label: val.Value}
			if lens.Counts() {
				o.Label += fmt.Sprintf(" (%s)", templates.Group(val.Members))
			}
			o.Selected = o.Value == f.Current
			found = found || o.Selected
			g.Options = append(g.Options, o)
		}
		if seg.Attr == a && !found { // a value nobody holds now: still the one shown
			g.Options = append(g.Options, templates.SegmentOption{Value: seg.String(), Label: seg.Value, Selected: true})
		}
		f.Groups = append(f.Groups, g)
	}
	return f, nil
}
