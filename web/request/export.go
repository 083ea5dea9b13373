package request

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
)

// Exporter hands over a whole period's entries, a page at a time: from
// Redis, or from the archive once the period's keys are gone.
type Exporter interface {
	Each(ctx context.Context, b *board.Board, p board.Period, fn func([]board.Entry) error) error
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
func Export(c echo.Context, src Exporter, b *board.Board, p board.Period, format string, log *slog.Logger) error {
	name := b.ID + "-" + strings.ReplaceAll(p.String(), ":", "-") + "." + format
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
	err := rows.Export(w, format, b, p, func(fn func([]board.Entry) error) error { return src.Each(ctx, b, p, fn) })
	if err != nil && w.started {
		log.Warn("export cut short", "board", b.ID, "period", p.String(), "format", format, "error", err)
		panic(http.ErrAbortHandler) // the answer has begun: break it, so it is not taken for whole
	}
	_ = rc.SetWriteDeadline(time.Time{})
	return err
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
