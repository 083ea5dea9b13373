package app

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// shutdown stops serving in two steps. It drains first (web.Server.Drain):
// /readyz answers 503, so load balancers take the instance out, and every
// answer carries Connection: close, so a client on a keep-alive connection
// gets its answer and sends its next request elsewhere; until drained fires
// (DRAIN_PERIOD after the signal). Then http.Server.Shutdown closes the
// connections left idle and waits, up to timeout, for requests in flight.
// Shutting down at the signal closed keep-alive connections as idle while a
// request was arriving on them: a client could not tell whether its write
// was applied.
func shutdown(srv *http.Server, app interface{ Drain() }, drained <-chan time.Time, timeout time.Duration, log *slog.Logger) error {
	app.Drain()
	<-drained
	log.Info("shutting down", slog.Duration("timeout", timeout))
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return srv.Shutdown(ctx)
}
