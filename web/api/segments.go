package api

import (
	"context"
	"maps"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
)

// segmentParam reads the entries' filter "segment=<attribute>:<value>"
// (zero: none); a bad one is a bad parameter (400), as a bad limit is.
func segmentParam(c echo.Context, b *board.Board) (board.Segment, error) {
	seg, err := board.ParseSegment(b, c.QueryParam("segment"))
	if err != nil {
		p := request.BadRequest(err.Error())
		p.Code, p.Field = "bad_parameter", "segment"
		return seg, p
	}
	return seg, nil
}

// segmentJSON names a segment: an attribute and one of its values.
type segmentJSON struct {
	Attribute string `json:"attribute"`
	Value     string `json:"value"`
}

// apiSegmentEntries is apiEntries filtered to one segment: ranks among the
// segment's members, each row's rank on the whole period beside. A reader
// a privacy mode limits sees the rows the plain page would show them.
func (s *Handler) apiSegmentEntries(c echo.Context, b *board.Board, p board.Period, seg board.Segment, offset, limit int) error {
	lens := s.opts.Gate.Lens(c, b)
	pg, err := s.opts.Store.SegmentPage(c.Request().Context(), b, p, seg, offset, limit)
	if err != nil {
		return err
	}
	es := lens.SegmentEntries(pg.Entries)
	out := entriesJSON(b, es)
	for i := range out {
		g := es[i].GlobalRank
		out[i].GlobalRank = &g
	}
	total := pg.Total
	if !lens.Counts() {
		total = len(es) // where only the top is shown, no count of the rest
	}
	return c.JSON(http.StatusOK, pageJSON{Board: b.ID, Entries: out, FrozenSince: s.frozenSince(b), Offset: offset, Period: toPeriodJSON(p),
		Segment: &segmentJSON{Attribute: seg.Attr, Value: seg.Value}, Total: total})
}

// segmentAroundJSON answers apiAround within a segment: the rows around
// the member in the segment, ranks within it and on the whole period, as
// apiSegmentEntries shows a segment's rows.
func (s *Handler) segmentAroundJSON(c echo.Context, b *board.Board, p board.Period, seg board.Segment, lens rows.Lens, member string, pg board.Page, pos int) error {
	es := lens.SegmentEntries(pg.Entries)
	out := entriesJSON(b, es)
	for i := range out {
		g := es[i].GlobalRank
		out[i].GlobalRank = &g
	}
	offset, total := pg.Offset, pg.Total
	if len(es) > 0 {
		offset = es[0].Position
	}
	if !lens.Counts() {
		total = len(es)
	}
	return c.JSON(http.StatusOK, aroundJSON{Board: b.ID, Entries: out, FrozenSince: s.frozenSince(b), Member: member, Offset: offset,
		Period: toPeriodJSON(p), Position: pos, Segment: &segmentJSON{Attribute: seg.Attr, Value: seg.Value}, Total: total})
}

// memberSegments are a member's values (nil: none, or a board without
// segments) and its standing within each of them in every period sts
// holds (request.MemberSegments, which the member page shows too).
func (s *Handler) memberSegments(ctx context.Context, b *board.Board, lens rows.Lens, member string, sts []board.Standing, out *memberJSON) error {
	vs, ranks, err := request.MemberSegments(ctx, s.opts.Store, b, lens, member, sts)
	if err != nil || len(vs) == 0 {
		return err
	}
	out.Segments = vs
	for i, rs := range ranks {
		for _, r := range rs {
			out.Periods[i].SegmentRanks = append(out.Periods[i].SegmentRanks, segmentRankJSON{Attribute: r.Segment.Attr, Value: r.Segment.Value, Rank: r.Rank, Total: r.Total})
		}
	}
	return nil
}

// segmentRankJSON is a member's rank within one of its segments in a period.
type segmentRankJSON struct {
	Attribute string `json:"attribute"`
	Value     string `json:"value"`
	Rank      int    `json:"rank"`
	Total     int    `json:"total"`
}

// segmentChangeJSON is what a PUT of a member's values changed: per
// attribute, the value it left and the one it holds.
type segmentChangeJSON struct {
	Changed  bool              `json:"changed"`
	Left     map[string]string `json:"left"`
	Member   string            `json:"member"`
	Segments map[string]string `json:"segments"`
}

// apiSetSegments gives a member values of the board's attributes
// ({"segments": {"country": "NO"}}; "" takes it out of one), moving its
// scores in every period along. Each attribute is one atomic step, in
// attribute order; all are checked first.
func (s *Handler) apiSetSegments(c echo.Context) error {
	b, err := s.boardToWrite(c)
	if err != nil {
		return err
	}
	var body struct {
		Segments map[string]string `json:"segments"`
		Reason   string            `json:"reason,omitempty"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if len(body.Segments) == 0 {
		ae := apiErr(422, "invalid", `segments: is required: {"segments": {"<attribute>": "<value>"}} ("" takes the member out of one)`)
		ae.Field = "segments"
		return ae
	}
	member := request.Param(c, "member")
	if err := board.CheckMember(member); err != nil {
		return err
	}
	if err := board.CheckSegments(&b, body.Segments); err != nil {
		return err
	}
	out := segmentChangeJSON{Left: map[string]string{}, Member: member, Segments: body.Segments}
	by := board.Author{Actor: actorOfKey(keyOf(c)), Reason: body.Reason}
	for _, a := range slices.Sorted(maps.Keys(body.Segments)) {
		left, changed, err := s.opts.Store.SetSegment(c.Request().Context(), b.ID, member, a, body.Segments[a], by)
		if err != nil {
			return err
		}
		out.Left[a], out.Changed = left, out.Changed || changed
	}
	return c.JSON(http.StatusOK, out)
}
