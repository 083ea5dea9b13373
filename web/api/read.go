package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
)

// boardJSON is a board definition on the wire (board.Spec), with the rules
// its JSON shape cannot state (check). League shadows the Spec's to tell a
// league left out (kept on an update) from "league": null (taken off).
type boardJSON struct {
	board.Spec
	League leagueJSON `json:"league"`
}

// leagueJSON is a definition's "league": Set when the body names it, L nil
// for null.
type leagueJSON struct {
	Set bool
	L   *board.League
}

func (l *leagueJSON) UnmarshalJSON(raw []byte) error {
	l.Set = true
	if string(raw) == "null" {
		l.L = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	l.L = new(board.League)
	return dec.Decode(l.L)
}

// Board is the definition sent, its league included.
func (j *boardJSON) Board() board.Board {
	j.Spec.League = j.League.L
	return j.Spec.Board()
}

func (s *Handler) apiLoadBoard(c echo.Context) (board.Board, error) {
	return s.opts.Gate.Board(c, request.Param(c, "board"))
}

func (s *Handler) apiPeriod(c echo.Context, b *board.Board) (board.Period, error) {
	p, _, err := request.Period(b, c.QueryParam("period"), c.QueryParam("at"), s.opts.Store.Now())
	return p, err
}

// pageParams reads a page's offset and limit (50 unless asked).
func pageParams(c echo.Context) (offset, limit int, err error) {
	if offset, err = apiInt(c, "offset", 0, 0, 100_000_000); err != nil {
		return 0, 0, err
	}
	limit, err = apiInt(c, "limit", 50, 1, board.MaxPageSize)
	return offset, limit, err
}

func apiInt(c echo.Context, name string, def, lo, hi int) (int, error) {
	return request.Int(c.QueryParam(name), name, def, lo, hi)
}

func (s *Handler) apiBoards(c echo.Context) error {
	bs, err := s.opts.Store.Boards(c.Request().Context())
	if err != nil {
		return err
	}
	bs = s.opts.Gate.Listed(c, bs)
	out := make([]board.Spec, len(bs))
	for i := range bs {
		out[i] = board.SpecOf(&bs[i])
	}
	return c.JSON(http.StatusOK, boardsJSON{Boards: out})
}

func (s *Handler) apiBoard(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, board.SpecOf(&b))
}

func (s *Handler) apiEntries(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
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
	seg, err := segmentParam(c, &b)
	if err != nil {
		return err
	}
	if !seg.IsZero() {
		return s.apiSegmentEntries(c, &b, p, seg, offset, limit)
	}
	lens := s.opts.Gate.Lens(c, &b)
	cs := cursorsOf(lens.Masker)
	var pg board.Page
	if raw, ok := c.QueryParams()["after"]; ok {
		if _, both := c.QueryParams()["offset"]; both {
			ae := apiErr(400, "bad_parameter", "offset and after cannot be used together: after continues from the row a page ended on")
			ae.Field = "offset"
			return ae
		}
		m, err := cs.open(raw[0], &b, p)
		if err != nil {
			return err
		}
		pg, err = request.ReadPageAfter(c.Request().Context(), s.opts.Store, lens, p, m, limit)
		if err != nil {
			return err
		}
	} else if pg, err = request.ReadPage(c.Request().Context(), s.opts.Store, lens, p, offset, limit); err != nil {
		return err
	}
	frozen := s.frozenSince(&b)
	return answerOnce(c, pg.Memo, !lens.Limited(), frozen, func() any {
		return pageJSON{Board: b.ID, Entries: entriesJSON(&b, lens.Entries(pg.Entries)), FrozenSince: frozen,
			Next: nextCursor(cs, lens, p, pg), Offset: pg.Offset, Period: toPeriodJSON(p), Total: lens.Total(pg.Total)}
	})
}

// nextCursor is the cursor of the page after pg for a reader who sees
// the board through lens: "" after the last place the reader may see.
// It is the same for every reader of pg (it does not say what they may
// see), as answerOnce needs.
func nextCursor(cs cursors, lens rows.Lens, p board.Period, pg board.Page) string {
	if len(pg.Entries) == 0 {
		return ""
	}
	last := pg.Entries[len(pg.Entries)-1]
	if last.Position+1 >= lens.Total(pg.Total) {
		return ""
	}
	return cs.seal(lens.Board, p, board.MarkOf(last))
}

// memberNotFound is the answer about a member with no score on a board,
// and about one the reader may not see: the two must not differ.
func memberNotFound(member string, b *board.Board) *apiError {
	return apiErr(404, "member_not_found", "%q has no score on board %q", member, b.ID)
}

func (s *Handler) apiMember(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
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
	sts, err := s.opts.Store.Member(c.Request().Context(), &b, member)
	if err != nil {
		return err
	}
	out := memberJSON{Member: member, Name: member, FrozenSince: s.frozenSince(&b)}
	known := false
	for _, st := range sts {
		j := standingJSON{Period: toPeriodJSON(st.Period), Ranked: st.Ranked, Total: lens.Total(st.Total)}
		if st.Ranked {
			known = true
			j.Rank, j.Score = st.Rank, json.Number(b.Format.Number(st.Score))
			if lens.Counts() {
				pct := st.Percentile()
				j.Percentile = &pct
			}
		}
		if st.Name != "" && st.Name != member {
			out.Name, known = st.Name, true
		}
		out.Periods = append(out.Periods, j)
	}
	if !known {
		return memberNotFound(member, &b)
	}
	if err := s.memberSegments(c.Request().Context(), &b, lens, member, sts, &out); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Handler) apiAround(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	p, err := s.apiPeriod(c, &b)
	if err != nil {
		return err
	}
	radius, err := apiInt(c, "radius", 5, 0, board.MaxAround)
	if err != nil {
		return err
	}
	member := request.Param(c, "member")
	if err := board.CheckMember(member); err != nil {
		return err
	}
	seg, err := segmentParam(c, &b)
	if err != nil {
		return err
	}
	lens := s.opts.Gate.Lens(c, &b)
	var pg board.Page
	var pos int
	switch {
	case !lens.Opens(member):
		err = board.ErrNotFound // as for a member without a score
	case !seg.IsZero():
		pg, pos, err = s.opts.Store.SegmentAround(c.Request().Context(), &b, p, seg, member, radius)
	default:
		pg, pos, err = s.opts.Store.Around(c.Request().Context(), &b, p, member, radius)
	}
	if errors.Is(err, board.ErrNotFound) {
		where := p.Title()
		if !seg.IsZero() {
			where = seg.Attr + " " + seg.Value + " in " + where
		}
		ae := apiErrorFor(err, "%q has no score in %s of board %q", member, where, b.ID)
		ae.Code = "member_not_found"
		return ae
	}
	if err != nil {
		return err
	}
	if !seg.IsZero() {
		return s.segmentAroundJSON(c, &b, p, seg, lens, member, pg, pos)
	}
	entries, offset := lens.Entries(pg.Entries), pg.Offset
	if len(entries) > 0 {
		offset = entries[0].Position
	}
	frozen := s.frozenSince(&b)
	return answerOnce(c, pg.Memo, !lens.Limited(), frozen, func() any {
		return aroundJSON{Board: b.ID, Entries: entriesJSON(&b, entries), FrozenSince: frozen,
			Member: member, Offset: offset, Period: toPeriodJSON(p), Position: pos, Total: lens.Total(pg.Total)}
	})
}

// apiExport downloads a period whole, or one segment of it, as CSV (the
// default) or JSON, streamed.
func (s *Handler) apiExport(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	p, err := s.apiPeriod(c, &b)
	if err != nil {
		return err
	}
	format := c.QueryParam("format")
	switch format {
	case "":
		format = rows.CSV
	case rows.CSV, rows.JSON:
	default:
		ae := apiErr(400, "bad_request", "format must be csv or json, not %q", format)
		ae.Field = "format"
		return ae
	}
	seg, err := segmentParam(c, &b)
	if err != nil {
		return err
	}
	return request.Export(c, s.opts.Export, s.opts.Store, s.opts.Gate.Lens(c, &b), p, seg, format, s.log)
}
