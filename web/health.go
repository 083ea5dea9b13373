package web

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// healthz says the process is up.
func (s *Server) healthz(c echo.Context) error { return c.String(http.StatusOK, "ok\n") }

// readyz says whether Redis answers, so a load balancer stops sending traffic
// to an instance that cannot serve it, or that is draining before a shutdown.
func (s *Server) readyz(c echo.Context) error {
	if s.draining.Load() {
		return c.String(http.StatusServiceUnavailable, "draining\n")
	}
	if s.opts.Ready == nil {
		return c.String(http.StatusOK, "ok\n")
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.opts.Ready(ctx); err != nil {
		s.log.Warn("not ready", slog.Any("error", err))
		return c.String(http.StatusServiceUnavailable, "redis unavailable\n")
	}
	return c.String(http.StatusOK, "ok\n")
}
