package api

import (
	"encoding/json"
	"errors"

	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
)

// boardJSON is a board definition on the wire (board.Spec), with the rules
// its JSON shape cannot state (check).
type boardJSON struct{ board.Spec }

type periodJSON struct {
	Kind  string     `json:"kind"`
	Key   string     `json:"key,omitempty"`
	Title string     `json:"title"`
	Start *time.Time `json:"start,omitempty"`
	End   *time.Time `json:"end,omitempty"`
}

func toPeriodJSON(p board.Period) periodJSON {
	j := periodJSON{Kind: string(p.Kind), Key: p.Key, Title: p.Title()}
	if p.Kind.Calendar() {
		j.Start, j.End = &p.Start, &p.End
	}
	return j
}

type entryJSON struct {
	Rank   int         `json:"rank"`
	Member string      `json:"member"`
	Name   string      `json:"name"`
	Score  json.Number `json:"score"` // exact: board.Format.Number
	Shown  string      `json:"score_text"`
	Fields []int64     `json:"fields,omitempty"`
	Tied   bool        `json:"tied,omitempty"`
}

func entriesJSON(b *board.Board, es []board.Entry) []entryJSON {
	out := make([]entryJSON, len(es))
	for i, r := range rows.Of(b, es) {
		out[i] = entryJSON{Rank: r.Rank, Member: r.Member, Name: r.Name, Score: json.Number(b.Format.Number(es[i].Score)), Shown: r.Score, Fields: es[i].Fields, Tied: r.Tied}
	}
	return out
}

func (s *Handler) apiLoadBoard(c echo.Context) (board.Board, error) {
	return request.Board(c.Request().Context(), s.opts.Store, request.Param(c, "board"))
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
	out := make([]board.Spec, len(bs))
	for i := range bs {
		out[i] = board.SpecOf(&bs[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"boards": out})
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
	pg, err := s.opts.Store.Page(c.Request().Context(), &b, p, offset, limit)
	if err != nil {
		return err
	}
	out := map[string]any{
		"board": b.ID, "period": toPeriodJSON(p), "total": pg.Total, "offset": offset, "entries": entriesJSON(&b, pg.Entries),
	}
	s.noteFrozen(&b, out)
	return c.JSON(http.StatusOK, out)
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
	sts, err := s.opts.Store.Member(c.Request().Context(), &b, member)
	if err != nil {
		return err
	}
	type standing struct {
		Period     periodJSON  `json:"period"`
		Ranked     bool        `json:"ranked"`
		Rank       int         `json:"rank,omitempty"`
		Score      json.Number `json:"score,omitempty"`
		Total      int         `json:"total"`
		Percentile *float64    `json:"percentile,omitempty"`
	}
	out := struct {
		Member      string     `json:"member"`
		Name        string     `json:"name"`
		Periods     []standing `json:"periods"`
		FrozenSince *time.Time `json:"frozen_since,omitempty"`
	}{Member: member, Name: member, FrozenSince: s.frozenSince(&b)}
	known := false
	for _, st := range sts {
		j := standing{Period: toPeriodJSON(st.Period), Ranked: st.Ranked, Total: st.Total}
		if st.Ranked {
			known = true
			pct := st.Percentile()
			j.Rank, j.Score, j.Percentile = st.Rank, json.Number(b.Format.Number(st.Score)), &pct
		}
		if st.Name != "" && st.Name != member {
			out.Name, known = st.Name, true
		}
		out.Periods = append(out.Periods, j)
	}
	if !known {
		return apiErr(404, "member_not_found", "%q has no score on board %q", member, b.ID)
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
	pg, pos, err := s.opts.Store.Around(c.Request().Context(), &b, p, member, radius)
	if errors.Is(err, board.ErrNotFound) {
		return apiErr(404, "member_not_found", "%q has no score in %s of board %q", member, p.Title(), b.ID)
	}
	if err != nil {
		return err
	}
	out := map[string]any{
		"board": b.ID, "period": toPeriodJSON(p), "total": pg.Total, "member": member,
		"position": pos, "offset": pg.Offset, "entries": entriesJSON(&b, pg.Entries),
	}
	s.noteFrozen(&b, out)
	return c.JSON(http.StatusOK, out)
}

// apiExport downloads a period whole, as CSV (the default) or JSON, streamed.
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
	return request.Export(c, s.opts.Export, &b, p, format, s.log)
}
