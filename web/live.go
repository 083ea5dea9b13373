package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/live"
)

// Live is what the pages need from the live hub.
type Live interface {
	Serve(w http.ResponseWriter, r *http.Request, spec live.Spec, origins []string)
	Stats() live.Stats
}

// liveSocket upgrades to a WebSocket streaming one view: a page of a period
// (offset, limit) or the members around one (member, radius). It checks the
// query like the pages do, so a bad one gets a 4xx before any upgrade.
func (s *Server) liveSocket(c echo.Context) error {
	id := c.QueryParam("board")
	b, err := s.opts.Store.Board(c.Request().Context(), id)
	if errors.Is(err, board.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("no board %q", id))
	}
	if err != nil {
		return err // handleError: 503 while Redis is unreachable, before any upgrade
	}
	kind := c.QueryParam("period")
	if kind == "" {
		kind = string(b.DefaultPeriod)
	}
	at := c.QueryParam("at")
	if _, err := b.ParsePeriod(kind, at, s.opts.Store.Now()); err != nil {
		return echo.NewHTTPError(http.StatusNotFound, err.Error())
	}
	spec := live.Spec{Board: b.ID, Kind: board.Kind(kind), Key: at}
	if member := c.QueryParam("member"); member != "" {
		if err := board.CheckMember(member); err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, err.Error())
		}
		spec.Member = member
		if spec.Radius, err = intParam(c.QueryParam("radius"), "radius", defaultRadius, 0, board.MaxAround); err != nil {
			return err
		}
	} else {
		if spec.Offset, err = intParam(c.QueryParam("offset"), "offset", 0, 0, 10_000_000); err != nil {
			return err
		}
		if spec.Limit, err = intParam(c.QueryParam("limit"), "limit", defaultSize, 1, maxSize); err != nil {
			return err
		}
	}
	s.opts.Live.Serve(c.Response(), c.Request(), spec, s.opts.EmbedOrigins)
	return nil
}

// metrics exposes the hub's counters in the Prometheus text format.
func (s *Server) metrics(c echo.Context) error {
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
