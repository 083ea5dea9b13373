package request

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
)

// Exporter hands over a whole period's entries, a page at a time: from
// Redis, or from the archive once the period's keys are gone.
type Exporter interface {
	// EachIn hands over segment seg's members only, ranked within it,
	// when seg is not zero.
	EachIn(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, fn func([]board.Entry) error) error
}

// TopReader reads the top of a period and a member's place in it
// (redisstore.Store): all an export shows a reader shown only the top.
type TopReader interface {
	PageReader
	Around(ctx context.Context, b *board.Board, p board.Period, member string, k int) (board.Page, int, error)
	SegmentPage(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, offset, limit int) (board.Page, error)
}

// ExportFormat reads ?format= (csv by default), or a problem naming it.
func ExportFormat(c echo.Context) (string, error) {
	switch f := c.QueryParam("format"); f {
	case "", rows.CSV:
		return rows.CSV, nil
	case rows.JSON:
		return rows.JSON, nil
	default:
		return "", BadRequest("format must be csv or json, not “" + f + "”.")
	}
}

// Export streams a period of a board as a download. Nothing is sent until
// the first rows are read (an export refused as busy, or Redis failing, is
// an ordinary error answer); a failure after that aborts the connection, so
// the client sees a broken download rather than a short one that looks
// whole. Each write must reach the client within writeWait: a client that
// stops reading loses its download instead of holding an export slot.
//
// The rows are those the reader sees (lens): where only the top is shown,
// the export is the top (and a personal link's own row), read from top
// rather than copied whole from src, so that its cost tells nothing of the
// members beyond; hidden names are stand-ins. An export of segment seg
// (not zero) holds its members, ranked within it; where only the top is
// shown, those of them among the top.
func Export(c echo.Context, src Exporter, top TopReader, lens rows.Lens, p board.Period, seg board.Segment, format string, log *slog.Logger) error {
	b := lens.Board
	name := b.ID + "-" + strings.ReplaceAll(p.String(), ":", "-")
	if !seg.IsZero() {
		name += "-" + seg.Attr + "-" + safeName(seg.Value)
	}
	name += "." + format
	rc := http.NewResponseController(c.Response())
	w := &lazy{res: c.Response(), rc: rc, start: func(h http.Header) {
		if format == rows.CSV {
			h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
		} else {
			h.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
		}
		h.Set(echo.HeaderContentDisposition, `attachment; filename="`+name+`"`)
		h.Set("Cache-Control", "no-store")
	}}
	ctx := c.Request().Context()
	err := rows.Export(w, format, b, p, seg, func(fn func([]board.Entry) error) error {
		switch {
		case !lens.Counts() && !seg.IsZero():
			es, err := shownIn(ctx, top, lens, p, seg)
			if err != nil {
				return err
			}
			return fn(es)
		case !lens.Counts():
			es, err := shown(ctx, top, lens, p)
			if err != nil {
				return err
			}
			return fn(lens.Entries(es))
		case !seg.IsZero():
			return src.EachIn(ctx, b, p, seg, func(es []board.Entry) error { return fn(lens.SegmentEntries(es)) })
		}
		return src.EachIn(ctx, b, p, seg, func(es []board.Entry) error { return fn(lens.Entries(es)) })
	})
	if err != nil && w.started {
		log.Warn("export cut short", "board", b.ID, "period", p.String(), "format", format, "error", err)
		panic(http.ErrAbortHandler) // the answer has begun: break it, so it is not taken for whole
	}
	_ = rc.SetWriteDeadline(time.Time{})
	return err
}

// shown reads the entries of period p a reader shown only the top sees:
// the top, and a personal link's own row wherever it stands.
func shown(ctx context.Context, top TopReader, lens rows.Lens, p board.Period) ([]board.Entry, error) {
	b := lens.Board
	pg, err := top.Page(ctx, b, p, 0, b.TopOnly)
	if err != nil {
		return nil, err
	}
	es, me := pg.Entries, lens.Sight.Me
	if me == "" || slices.ContainsFunc(es, func(e board.Entry) bool { return e.Member == me }) {
		return es, nil
	}
	around, pos, err := top.Around(ctx, b, p, me, 0)
	switch {
	case errors.Is(err, board.ErrNotFound):
		return es, nil // no score of theirs in the period
	case err != nil:
		return nil, err
	}
	return append(es, around.Entries[pos-around.Offset]), nil
}

// shownIn reads the members of segment seg a reader shown only the top
// sees: those among the top, as a segment's page shows them (they are
// within the segment's first TopOnly places), each with its value of the
// segment's attribute (the top's other values are not read).
func shownIn(ctx context.Context, top TopReader, lens rows.Lens, p board.Period, seg board.Segment) ([]board.Entry, error) {
	pg, err := top.SegmentPage(ctx, lens.Board, p, seg, 0, lens.Board.TopOnly)
	if err != nil {
		return nil, err
	}
	es := lens.SegmentEntries(pg.Entries)
	for i := range es {
		es[i].Segments = map[string]string{seg.Attr: seg.Value}
	}
	return es, nil
}

// safeName keeps the letters, digits, '-' and '_' of a value, for a file
// name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}

// writeWait is how long one write of an export may wait for the client.
const writeWait = 30 * time.Second

// lazy sends the answer's headers with its first bytes.
type lazy struct {
	res     *echo.Response
	rc      *http.ResponseController
	start   func(http.Header)
	started bool
}

func (l *lazy) Write(p []byte) (int, error) {
	_ = l.rc.SetWriteDeadline(time.Now().Add(writeWait)) // best effort: not every writer supports it
	if !l.started {
		l.started = true
		l.start(l.res.Header())
		l.res.WriteHeader(http.StatusOK)
	}
	return l.res.Write(p)
}
