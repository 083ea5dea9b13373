package web

import (
	"encoding/json"
	"errors"

	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/live"
)

// boardJSON is a board definition on the wire, for reads and boards as code.
type boardJSON struct {
	ID            string      `json:"id"`
	Title         string      `json:"title"`
	Format        formatJSON  `json:"format"`
	Order         string      `json:"order"`
	Periods       []string    `json:"periods"`
	DefaultPeriod string      `json:"default_period,omitempty"`
	TimeZone      string      `json:"time_zone,omitempty"`
	TieBreak      string      `json:"tie_break,omitempty"`
	RankStyle     string      `json:"rank_style,omitempty"`
	Fields        []fieldJSON `json:"fields,omitempty"`
	Cap           int         `json:"cap,omitempty"`
	Created       *time.Time  `json:"created,omitempty"`
	Updated       *time.Time  `json:"updated,omitempty"`
}

type formatJSON struct {
	Type     string `json:"type"`
	Decimals int    `json:"decimals,omitempty"`
	Prefix   string `json:"prefix,omitempty"`
	Suffix   string `json:"suffix,omitempty"`
}

type fieldJSON struct {
	Name string `json:"name"`
	Desc bool   `json:"desc,omitempty"`
}

func toBoardJSON(b *board.Board) boardJSON {
	j := boardJSON{
		ID: b.ID, Title: b.Title, Order: string(b.Order), DefaultPeriod: string(b.DefaultPeriod),
		TimeZone: b.TimeZone, TieBreak: string(b.TieBreak), RankStyle: string(b.RankStyle), Cap: b.Cap,
		Format:  formatJSON{Type: string(b.Format.Type), Decimals: b.Format.Decimals, Prefix: b.Format.Prefix, Suffix: b.Format.Suffix},
		Periods: []string{}, Created: &b.Created, Updated: &b.Updated,
	}
	for _, k := range b.Periods {
		j.Periods = append(j.Periods, string(k))
	}
	for _, f := range b.Fields {
		j.Fields = append(j.Fields, fieldJSON(f))
	}
	return j
}

func (j boardJSON) board() board.Board {
	b := board.Board{
		ID: j.ID, Title: j.Title, Order: board.Order(j.Order), DefaultPeriod: board.Kind(j.DefaultPeriod),
		TimeZone: j.TimeZone, TieBreak: board.TieBreak(j.TieBreak), RankStyle: board.RankStyle(j.RankStyle), Cap: j.Cap,
		Format: board.Format{Type: board.FormatType(j.Format.Type), Decimals: j.Format.Decimals, Prefix: j.Format.Prefix, Suffix: j.Format.Suffix},
	}
	for _, k := range j.Periods {
		b.Periods = append(b.Periods, board.Kind(k))
	}
	for _, f := range j.Fields {
		b.Fields = append(b.Fields, board.Field(f))
	}
	return b
}

type periodJSON struct {
	Kind  string     `json:"kind"`
	Key   string     `json:"key,omitempty"`
	Title string     `json:"title"`
	Start *time.Time `json:"start,omitempty"`
	End   *time.Time `json:"end,omitempty"`
}

func toPeriodJSON(p board.Period) periodJSON {
	j := periodJSON{Kind: string(p.Kind), Key: p.Key, Title: p.Title()}
	if p.Kind != board.AllTime {
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
	for i, r := range live.Rows(b, es) {
		out[i] = entryJSON{Rank: r.Rank, Member: r.Member, Name: r.Name, Score: json.Number(b.Format.Number(es[i].Score)), Shown: r.Score, Fields: es[i].Fields, Tied: r.Tied}
	}
	return out
}

func (s *Server) apiLoadBoard(c echo.Context) (board.Board, error) {
	id := param(c, "board")
	b, err := s.opts.Store.Board(c.Request().Context(), id)
	if errors.Is(err, board.ErrNotFound) {
		return b, apiErr(404, "board_not_found", "there is no board %q", id)
	}
	return b, err
}

func (s *Server) apiPeriod(c echo.Context, b *board.Board) (board.Period, error) {
	p, err := b.ParsePeriod(c.QueryParam("period"), c.QueryParam("at"), s.opts.Store.Now())
	if err != nil {
		return p, apiErr(404, "period_not_found", "%s", reason(err))
	}
	return p, nil
}

func apiInt(c echo.Context, name string, def, lo, hi int) (int, error) {
	n, err := intParam(c.QueryParam(name), name, def, lo, hi)
	if err != nil {
		ae := apiErr(400, "bad_parameter", "%s must be a whole number from %d to %d", name, lo, hi)
		ae.Field = name
		return 0, ae
	}
	return n, nil
}

func (s *Server) apiBoards(c echo.Context) error {
	bs, err := s.opts.Store.Boards(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]boardJSON, len(bs))
	for i := range bs {
		out[i] = toBoardJSON(&bs[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"boards": out})
}

func (s *Server) apiBoard(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toBoardJSON(&b))
}

func (s *Server) apiEntries(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	p, err := s.apiPeriod(c, &b)
	if err != nil {
		return err
	}
	offset, err := apiInt(c, "offset", 0, 0, 100_000_000)
	if err != nil {
		return err
	}
	limit, err := apiInt(c, "limit", 50, 1, board.MaxPageSize)
	if err != nil {
		return err
	}
	pg, err := s.opts.Store.Page(c.Request().Context(), &b, p, offset, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{
		"board": b.ID, "period": toPeriodJSON(p), "total": pg.Total, "offset": offset, "entries": entriesJSON(&b, pg.Entries),
	})
}

func (s *Server) apiMember(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	member := param(c, "member")
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
		Member  string     `json:"member"`
		Name    string     `json:"name"`
		Periods []standing `json:"periods"`
	}{Member: member, Name: member}
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

func (s *Server) apiAround(c echo.Context) error {
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
	member := param(c, "member")
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
	return c.JSON(http.StatusOK, map[string]any{
		"board": b.ID, "period": toPeriodJSON(p), "total": pg.Total, "member": member,
		"position": pos, "offset": pg.Offset, "entries": entriesJSON(&b, pg.Entries),
	})
}
