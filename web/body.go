package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// DefaultBodyTimeout bounds request bodies when Options.BodyTimeout is 0.
const DefaultBodyTimeout = 30 * time.Second

// bodyDeadline makes a request's body arrive within Options.BodyTimeout of
// its headers: a client that sends it slower (a byte every few seconds,
// holding a connection and a goroutine for as long as it likes) is cut off.
// The deadline is the connection's, absolute, so trickling does not extend
// it. Nothing is read here: the route reads the body under its own size
// limit, after its own checks (an API key, a session), and the readers that
// meet the deadline answer 408 (the API's readBody, the console's form
// parser); any other route answers what it answers, and net/http closes the
// connection, since the body was not read to its end. Once the body has been
// read to its end the deadline is lifted, so that a handler may take its
// time and net/http's watch for a client that leaves is not cut short.
// Requests without a body (WebSocket handshakes among them) are left alone.
func (s *Server) bodyDeadline(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			return next(c)
		}
		rc := http.NewResponseController(c.Response())
		if err := rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)); err != nil {
			return next(c) // not a connection of net/http's (a test's recorder)
		}
		db := &deadlineBody{ReadCloser: r.Body, rc: rc}
		r.Body = db
		err := next(c)
		if db.late.Load() && !c.Response().Committed {
			// net/http cancels the request's context on the failed read, but
			// the client is there to be told.
			c.SetRequest(c.Request().WithContext(context.WithoutCancel(c.Request().Context())))
			return lateBody()
		}
		return err
	}
}

// lateBody is the answer to a body that did not arrive in time; the
// connection is closed after it.
func lateBody() error {
	return echo.NewHTTPError(http.StatusRequestTimeout, "the request body did not arrive in time")
}

// deadlineBody lifts the connection's read deadline once the body has been
// read to its end, and remembers whether the deadline cut it off.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	late atomic.Bool
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF && !b.done:
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		b.late.Store(true)
	}
	return n, err
}
