package web

import (
	"crypto/subtle"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
)

// MetricsHandler serves the metrics alone, for a listener of their own
// (METRICS_ADDR) that only the monitoring network reaches.
func (s *Server) MetricsHandler() http.Handler {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/metrics", s.metrics)
	return e
}

// requireMetricsToken guards /metrics on the public address: it reveals
// traffic, so it answers only "Authorization: Bearer <MetricsToken>".
func (s *Server) requireMetricsToken(next echo.HandlerFunc) echo.HandlerFunc {
	want := []byte("Bearer " + s.opts.MetricsToken)
	return func(c echo.Context) error {
		if subtle.ConstantTimeCompare([]byte(c.Request().Header.Get("Authorization")), want) != 1 {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			return echo.NewHTTPError(http.StatusUnauthorized, "send the metrics token as Authorization: Bearer <token>")
		}
		return next(c)
	}
}

// metrics exposes the hub's counters in the Prometheus text format.
func (s *Server) metrics(c echo.Context) error {
	if s.opts.Live == nil {
		return c.String(http.StatusOK, "")
	}
	st := s.opts.Live.Stats()
	polling := 0
	if st.Polling {
		polling = 1
	}
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, "text/plain; version=0.0.4; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	for _, m := range []struct {
		name, kind, help string
		v                int64
	}{
		{"podium_live_clients", "gauge", "WebSocket clients connected now.", st.Clients},
		{"podium_live_views", "gauge", "Distinct live views now.", st.Views},
		{"podium_live_frames_total", "counter", "Frames written to clients.", st.Frames},
		{"podium_live_dropped_total", "counter", "Frames dropped for lagging clients, each replaced by a snapshot.", st.Dropped},
		{"podium_live_keyspace_events_total", "counter", "Keyspace notifications received.", st.Events},
		{"podium_live_view_reads_total", "counter", "View reads.", st.Reads},
		{"podium_live_last_tick_reads", "gauge", "View reads in the last tick that read any.", st.LastTickReads},
		{"podium_live_slow_disconnects_total", "counter", "Clients disconnected for not reading.", st.SlowDisconnects},
		{"podium_live_polling", "gauge", "1 when keyspace notifications are unavailable and watched keys are polled.", int64(polling)},
	} {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", m.name, m.help, m.name, m.kind, m.name, m.v)
	}
	return nil
}
