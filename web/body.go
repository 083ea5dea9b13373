package web

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v4"
)

// DefaultBodyTimeout bounds request bodies when Options.BodyTimeout is 0.
const DefaultBodyTimeout = 30 * time.Second

// maxEarlyBody is the most of a body read ahead of its handler: more than
// any route takes (the API's 1M). A body declared longer is left to its
// route, which refuses it by its Content-Length, and net/http reads no more
// than 256 KB of what is left, within the deadline.
const maxEarlyBody = 2 << 20

// bodyDeadline makes a request's body arrive within Options.BodyTimeout of
// its headers: a client that sends it slower (a byte every few seconds,
// holding a connection and a goroutine for as long as it likes) gets 408
// and its connection closed. The deadline is the connection's, absolute, so
// trickling does not extend it. The body is read here, ahead of the
// handler, so that every route answers the same 408 (a handler that met
// the failing read itself could answer anything), and the deadline is then
// lifted: a handler may take its time, and net/http's watch for a client
// that leaves is not cut short by it. WebSocket handshakes have no body and
// then live long: they are left alone (net/http also clears the deadlines
// of a connection it hands over).
func (s *Server) bodyDeadline(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 || isWebSocket(r) {
			return next(c)
		}
		rc := http.NewResponseController(c.Response())
		if err := rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)); err != nil || r.ContentLength > maxEarlyBody {
			// Not a connection of net/http's (a test's recorder), or a body
			// its route refuses unread, by its Content-Length.
			return next(c)
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxEarlyBody))
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// net/http cancels the request's context on a failed read, but the
			// client is there to be told.
			c.SetRequest(r.WithContext(context.WithoutCancel(r.Context())))
			c.Response().Header().Set("Connection", "close")
			return echo.NewHTTPError(http.StatusRequestTimeout, "the request body did not arrive in time")
		}
		var rest io.Reader = r.Body // a body longer than maxEarlyBody: its route refuses it, within the deadline
		switch {
		case err != nil: // the client left, or sent less than it said: the handler sees it as it would have
			rest = errReader{err}
		case len(body) < maxEarlyBody:
			rest = http.NoBody
			_ = rc.SetReadDeadline(time.Time{})
		}
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), rest), r.Body}
		return next(c)
	}
}

// readCloser reads from what was read ahead and closes the original body.
type readCloser struct {
	io.Reader
	io.Closer
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
