package web

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"podium/archive"
	"podium/live"
)

// Metrics: what /metrics serves comes from a registry of the server's own
// (tests build many servers), filled by prometheus/client_golang: HTTP
// requests, the live hub, the archiver, Redis (metrics_redis.go), the Go
// runtime and the process.

// Archiver is what the metrics read from the archiver at every scrape.
type Archiver interface{ Stats() archive.Stats }

// httpBuckets are the request latency histogram's upper bounds, in seconds:
// from a cached page to a slow export.
var httpBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// unmatched labels requests that matched no route: their raw paths would
// make a series per URL anyone cares to try.
const unmatched = "unmatched"

// metrics are the server's collectors.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// newMetrics makes the server's registry and its collectors.
func newMetrics(opts Options) *metrics {
	reg := prometheus.NewRegistry()
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podium_http_requests_total",
			Help: "HTTP requests answered, by route template, method and status code; a WebSocket counts as 101 once it is open.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "podium_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by route template and method; WebSocket upgrades, which last as long as the connection, are left out.",
			Buckets: httpBuckets,
		}, []string{"route", "method"}),
	}
	reg.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if opts.Live != nil {
		reg.MustRegister(hubCollector{opts.Live})
	}
	if opts.Cache != nil {
		reg.MustRegister(cacheCollector{opts.Cache})
	}
	if opts.Archiver != nil {
		reg.MustRegister(archiveCollector{opts.Archiver})
	}
	if opts.Redis != nil {
		if err := InstrumentRedis(reg, opts.Redis); err != nil {
			opts.Logger.Error("metrics: Redis is not measured", slog.Any("error", err))
		}
	}
	return m
}

// handler serves the registry in the Prometheus formats. Compression is the
// caller's: the main address compresses every response already.
func (m *metrics) handler(compress bool) http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, DisableCompression: !compress})
}

// MetricsHandler serves the metrics alone, for a listener of their own
// (METRICS_ADDR) that only the monitoring network reaches.
func (s *Server) MetricsHandler() http.Handler {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/metrics", echo.WrapHandler(s.metrics.handler(true)))
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

// notFound is Echo's handler for paths no route matches.
var notFound = reflect.ValueOf(echo.NotFoundHandler).Pointer()

// measure counts every request by route and times it. It sits outside every
// other middleware and answers a handler's error itself, so it sees the
// status actually sent, panics and errors included.
func (m *metrics) measure(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		route := c.Path()
		if route == "" || reflect.ValueOf(c.Handler()).Pointer() == notFound {
			route = unmatched
		}
		if err := next(c); err != nil {
			c.Error(err)
		}
		status, method := c.Response().Status, methodLabel(c.Request().Method)
		m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
		if status != http.StatusSwitchingProtocols {
			m.latency.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
		}
		return nil
	}
}

// methodLabel keeps the method label to the methods HTTP defines: any
// client may send any word there.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// hubCollector reads the hub's counters at each scrape.
type hubCollector struct {
	hub interface{ Stats() live.Stats }
}

var (
	liveClients      = prometheus.NewDesc("podium_live_clients", "WebSocket clients connected now.", nil, nil)
	liveViews        = prometheus.NewDesc("podium_live_views", "Distinct live views now.", nil, nil)
	liveConnections  = prometheus.NewDesc("podium_live_connections_total", "WebSocket connections accepted.", nil, nil)
	liveFrames       = prometheus.NewDesc("podium_live_frames_total", "Frames written to clients.", nil, nil)
	liveDropped      = prometheus.NewDesc("podium_live_dropped_total", "Frames dropped for lagging clients, each replaced by a snapshot.", nil, nil)
	liveEvents       = prometheus.NewDesc("podium_live_keyspace_events_total", "Keyspace notifications received.", nil, nil)
	liveReads        = prometheus.NewDesc("podium_live_view_reads_total", "View reads.", nil, nil)
	liveLastReads    = prometheus.NewDesc("podium_live_last_tick_reads", "View reads in the last tick that read any.", nil, nil)
	liveHeld         = prometheus.NewDesc("podium_live_frames_held_total", "Ticks in which a view's frame waited because its clients were still writing the previous one: the hub lowering that view's frame rate under load (at least one frame a second still goes out).", nil, nil)
	liveSlow         = prometheus.NewDesc("podium_live_slow_disconnects_total", "Clients disconnected for not reading or not answering a ping.", nil, nil)
	liveRefused      = prometheus.NewDesc("podium_live_refused_total", "WebSockets refused because their client address held LIVE_ADDR_LIMIT already.", nil, nil)
	livePolling      = prometheus.NewDesc("podium_live_polling", "1 when keyspace notifications are unavailable and watched keys are polled.", nil, nil)
	liveTick         = prometheus.NewDesc("podium_live_tick_duration_seconds", "Time the hub's ticks that read views took: the pipelined re-read of dirty views, the diffs and the encoding.", nil, nil)
	liveFrameLatency = prometheus.NewDesc("podium_live_notification_to_frame_seconds", "Time from a keyspace notification to the frame it caused being queued for the view's clients (the oldest notification of each tick that sent a changed frame).", nil, nil)
)

func (hubCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{liveClients, liveViews, liveConnections, liveFrames, liveDropped, liveEvents, liveReads,
		liveLastReads, liveHeld, liveSlow, liveRefused, livePolling, liveTick, liveFrameLatency} {
		ch <- d
	}
}

func (h hubCollector) Collect(ch chan<- prometheus.Metric) {
	st := h.hub.Stats()
	m := constMetrics{ch: ch}
	m.gauge(liveClients, float64(st.Clients))
	m.gauge(liveViews, float64(st.Views))
	m.counter(liveConnections, float64(st.Connections))
	m.counter(liveFrames, float64(st.Frames))
	m.counter(liveDropped, float64(st.Dropped))
	m.counter(liveEvents, float64(st.Events))
	m.counter(liveReads, float64(st.Reads))
	m.gauge(liveLastReads, float64(st.LastTickReads))
	m.counter(liveHeld, float64(st.Held))
	m.counter(liveSlow, float64(st.SlowDisconnects))
	m.counter(liveRefused, float64(st.Refused))
	polling := 0.0
	if st.Polling {
		polling = 1
	}
	m.gauge(livePolling, polling)
	ch <- constHistogram(liveTick, st.TickSeconds)
	ch <- constHistogram(liveFrameLatency, st.FrameLatencySeconds)
}

// cacheCollector reads the read cache's counters at each scrape.
type cacheCollector struct{ c Reads }

var (
	cacheHits    = prometheus.NewDesc("podium_read_cache_hits_total", "Reads of open periods (pages, the API, around-me, a member's standing) answered from the process's read cache.", nil, nil)
	cacheMisses  = prometheus.NewDesc("podium_read_cache_misses_total", "Reads of open periods that went to Redis: the first of each, and again after a change (at most once a tick under writes).", nil, nil)
	cacheEntries = prometheus.NewDesc("podium_read_cache_entries", "Answers kept in the read cache now.", nil, nil)
)

func (cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{cacheHits, cacheMisses, cacheEntries} {
		ch <- d
	}
}

func (c cacheCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.c.Stats()
	m := constMetrics{ch: ch}
	m.counter(cacheHits, float64(st.Hits))
	m.counter(cacheMisses, float64(st.Misses))
	m.gauge(cacheEntries, float64(st.Entries))
}

// constHistogram turns the hub's copy of a histogram into a metric.
func constHistogram(d *prometheus.Desc, h live.Histogram) prometheus.Metric {
	buckets := make(map[float64]uint64, len(h.Bounds))
	for i, b := range h.Bounds {
		buckets[b] = h.Counts[i]
	}
	return prometheus.MustNewConstHistogram(d, h.Count, h.Sum, buckets)
}

// archiveCollector reads the archiver's counters at each scrape.
type archiveCollector struct{ a Archiver }

var (
	archivePasses      = prometheus.NewDesc("podium_archive_passes_total", "Archiving passes run: every board's due periods, then the audit log.", nil, nil)
	archiveFailed      = prometheus.NewDesc("podium_archive_failed_passes_total", "Archiving passes that ended with an error; the next pass tries again.", nil, nil)
	archiveCopied      = prometheus.NewDesc("podium_archive_periods_copied_total", "Closed periods copied to the archive (first, final and operators' passes).", nil, nil)
	archiveRows        = prometheus.NewDesc("podium_archive_rows_copied_total", "Rows written by those copies.", nil, nil)
	archiveExpired     = prometheus.NewDesc("podium_archive_periods_expired_total", "Archived periods beyond their board's retention whose keys were set to expire from Redis.", nil, nil)
	archiveDropped     = prometheus.NewDesc("podium_archive_periods_dropped_total", "Archived copies dropped because an admin reset their period.", nil, nil)
	archiveAudit       = prometheus.NewDesc("podium_archive_audit_entries_copied_total", "Audit log entries copied to the archive.", nil, nil)
	archiveLastPass    = prometheus.NewDesc("podium_archive_last_pass_timestamp_seconds", "When the last archiving pass ended, in Unix time; 0: none yet.", nil, nil)
	archiveLastSuccess = prometheus.NewDesc("podium_archive_last_success_timestamp_seconds", "When the last archiving pass without an error ended, in Unix time; 0: none yet.", nil, nil)
)

func (archiveCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{archivePasses, archiveFailed, archiveCopied, archiveRows, archiveExpired, archiveDropped,
		archiveAudit, archiveLastPass, archiveLastSuccess} {
		ch <- d
	}
}

func (c archiveCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.a.Stats()
	m := constMetrics{ch: ch}
	m.counter(archivePasses, float64(st.Passes))
	m.counter(archiveFailed, float64(st.FailedPasses))
	m.counter(archiveCopied, float64(st.PeriodsCopied))
	m.counter(archiveRows, float64(st.RowsCopied))
	m.counter(archiveExpired, float64(st.Expired))
	m.counter(archiveDropped, float64(st.Dropped))
	m.counter(archiveAudit, float64(st.AuditCopied))
	m.gauge(archiveLastPass, unixSeconds(st.LastPass))
	m.gauge(archiveLastSuccess, unixSeconds(st.LastSuccess))
}

func unixSeconds(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}

// constMetrics sends values read at scrape time, with the same labels.
type constMetrics struct {
	ch     chan<- prometheus.Metric
	labels []string
}

func (m constMetrics) counter(d *prometheus.Desc, v float64) {
	m.ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, m.labels...)
}

func (m constMetrics) gauge(d *prometheus.Desc, v float64) {
	m.ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, m.labels...)
}
