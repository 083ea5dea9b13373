package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/redis/go-redis/v9"

	"podium/archive"
	"podium/board"
	"podium/internal/redistest"
	"podium/internal/webtest"
	"podium/live"
	"podium/web"
)

// families is a parsed scrape.
type families map[string]*dto.MetricFamily

// scrape asks h for /metrics and parses the answer; the text must also pass
// Prometheus' naming lint.
func scrape(t *testing.T, h http.Handler) families {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	return parseMetrics(t, rec.Body.Bytes())
}

func parseMetrics(t *testing.T, text []byte) families {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("parse metrics: %v\n%s", err, text)
	}
	problems, err := promlint.New(bytes.NewReader(text)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "podium_") {
			t.Errorf("lint: %s: %s", p.Metric, p.Text)
		}
	}
	return fams
}

// metric is the one metric of a family whose labels include the given
// name, value pairs; nil when there is none.
func (f families) metric(t *testing.T, name string, typ dto.MetricType, labels ...string) *dto.Metric {
	t.Helper()
	fam := f[name]
	if fam == nil {
		return nil
	}
	if fam.GetType() != typ {
		t.Fatalf("%s is a %s, want a %s", name, fam.GetType(), typ)
	}
next:
	for _, m := range fam.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		return m
	}
	return nil
}

// value is a counter's or gauge's value; -1 when it is missing.
func (f families) value(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	fam := f[name]
	if fam == nil {
		return -1
	}
	m := f.metric(t, name, fam.GetType(), labels...)
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	}
	t.Fatalf("%s is neither a counter nor a gauge", name)
	return 0
}

// observations is how many observations a histogram has; -1 when missing.
func (f families) observations(t *testing.T, name string, labels ...string) int {
	t.Helper()
	m := f.metric(t, name, dto.MetricType_HISTOGRAM, labels...)
	if m == nil {
		return -1
	}
	return int(m.Histogram.GetSampleCount())
}

type fakeArchiver struct{}

func (fakeArchiver) Stats() archive.Stats {
	return archive.Stats{Passes: 7, FailedPasses: 1, PeriodsCopied: 3, RowsCopied: 2500, LastSuccess: time.Unix(1_800_000_000, 0)}
}

// timedLive is a hub whose histograms have data.
type timedLive struct{ fakeLive }

func (timedLive) Stats() live.Stats {
	return live.Stats{Clients: 2, Views: 1,
		TickSeconds:         live.Histogram{Bounds: []float64{.01, .1}, Counts: []uint64{4, 5}, Count: 6, Sum: .9},
		FrameLatencySeconds: live.Histogram{Bounds: live.FrameLatencyBuckets, Counts: make([]uint64, len(live.FrameLatencyBuckets))},
	}
}

func TestMetrics(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}}, map[string]float64{"ann": 1})
	rdb := webtest.Redis(t)
	s := web.New(web.Options{Store: f.Store, Redis: rdb, Live: &timedLive{}, Archiver: fakeArchiver{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	for _, r := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/b/chess", 200},
		{"GET", "/b/chess?period=week", 200},
		{"GET", "/b/nope", 404},
		{"GET", "/no/such/page/42", 404},
		{"BREW", "/", 405},
		{"GET", "/live?board=chess", 101},
	} {
		if res := webtest.Record(s, httptest.NewRequest(r.method, r.path, nil)); res.Code != r.status {
			t.Fatalf("%s %s: %d, want %d", r.method, r.path, res.Code, r.status)
		}
	}
	ctx := context.Background()
	if err := rdb.Get(ctx, "no such key").Err(); err != redis.Nil {
		t.Fatal(err)
	}
	if err := rdb.Do(ctx, "NOSUCHCOMMAND").Err(); err == nil {
		t.Fatal("an unknown command succeeded")
	}
	if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error { p.Incr(ctx, "n"); p.Incr(ctx, "n"); return nil }); err != nil {
		t.Fatal(err)
	}
	m := scrape(t, s.MetricsHandler())

	// HTTP: by route template, never by raw path; upgrades are not timed.
	for _, c := range []struct {
		route, method, code string
		n                   float64
	}{
		{"/b/:board", "GET", "200", 2},
		{"/b/:board", "GET", "404", 1},
		{web.Unmatched, "GET", "404", 1},
		{"/", "OTHER", "405", 1},
		{"/live", "GET", "101", 1},
	} {
		if got := m.value(t, "podium_http_requests_total", "route", c.route, "method", c.method, "code", c.code); got != c.n {
			t.Errorf("requests %s %s %s: %v, want %v", c.method, c.route, c.code, got, c.n)
		}
	}
	for _, fam := range m["podium_http_requests_total"].Metric {
		for _, l := range fam.Label {
			if l.GetName() == "route" && (strings.Contains(l.GetValue(), "chess") || strings.Contains(l.GetValue(), "42")) {
				t.Errorf("a raw path became a route label: %s", l.GetValue())
			}
		}
	}
	if n := m.observations(t, "podium_http_request_duration_seconds", "route", "/b/:board", "method", "GET"); n != 3 {
		t.Errorf("board page latencies: %d, want 3", n)
	}
	if n := m.observations(t, "podium_http_request_duration_seconds", "route", "/live"); n != -1 {
		t.Errorf("a WebSocket upgrade was timed: %d", n)
	}

	// Redis: every command by name, a pipeline as one; a missing key is no error.
	for _, c := range []string{"get", "nosuchcommand", "pipeline"} {
		if n := m.observations(t, "podium_redis_command_duration_seconds", "command", c); n < 1 {
			t.Errorf("redis %s: %d observations", c, n)
		}
	}
	if n := m.observations(t, "podium_redis_command_duration_seconds", "command", "incr"); n != -1 {
		t.Errorf("pipelined commands were timed one by one: %d", n)
	}
	if got := m.value(t, "podium_redis_errors_total", "command", "nosuchcommand"); got != 1 {
		t.Errorf("errors of an unknown command: %v", got)
	}
	if got := m.value(t, "podium_redis_errors_total", "command", "get"); got != -1 {
		t.Errorf("redis.Nil counted as an error: %v", got)
	}
	if got := m.value(t, "podium_redis_pool_connections", "pool", "main"); got < 1 {
		t.Errorf("pool connections: %v", got)
	}
	if got := m.value(t, "podium_redis_pool_hits_total", "pool", "main"); got < 1 {
		t.Errorf("pool hits: %v", got)
	}

	// The hub, read at the scrape.
	if m.value(t, "podium_live_clients") != 2 || m.value(t, "podium_live_views") != 1 || m.value(t, "podium_live_frames_total") != 0 {
		t.Errorf("live gauges: %v", m["podium_live_clients"])
	}
	tick := m.metric(t, "podium_live_tick_duration_seconds", dto.MetricType_HISTOGRAM)
	if tick == nil || tick.Histogram.GetSampleCount() != 6 || tick.Histogram.GetSampleSum() != .9 || len(tick.Histogram.Bucket) != 3 || tick.Histogram.Bucket[1].GetCumulativeCount() != 5 {
		t.Errorf("tick histogram %v", tick)
	}
	if n := m.observations(t, "podium_live_notification_to_frame_seconds"); n != 0 {
		t.Errorf("notification to frame: %d", n)
	}

	// The archiver, the Go runtime and the process.
	if m.value(t, "podium_archive_passes_total") != 7 || m.value(t, "podium_archive_rows_copied_total") != 2500 ||
		m.value(t, "podium_archive_last_success_timestamp_seconds") != 1.8e9 || m.value(t, "podium_archive_last_pass_timestamp_seconds") != 0 {
		t.Errorf("archive metrics: %v %v", m["podium_archive_passes_total"], m["podium_archive_last_success_timestamp_seconds"])
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total", "process_resident_memory_bytes"} {
		if m[name] == nil {
			t.Errorf("no %s", name)
		}
	}

	// Servers have registries of their own: another one starts from zero.
	other := scrape(t, web.New(web.Options{Store: f.Store}).MetricsHandler())
	if other["podium_http_requests_total"] != nil || other["podium_live_clients"] != nil || other["podium_redis_pool_connections"] != nil {
		t.Error("a second server shares the first one's metrics")
	}
	if other["go_goroutines"] == nil {
		t.Error("a server without a hub or Redis has no runtime metrics")
	}
}

// TestMetricsCountPanics: a handler that panics is counted as the 500 it
// answers.
func TestMetricsCountPanics(t *testing.T) {
	s := web.New(web.Options{Store: webtest.New(t).Store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s.Echo().Logger.SetOutput(io.Discard) // Recover's stack trace
	s.Echo().GET("/boom/:n", func(c echo.Context) error { panic("boom") })
	if res := webtest.Record(s, httptest.NewRequest("GET", "/boom/1", nil)); res.Code != 500 {
		t.Fatalf("panic answered %d", res.Code)
	}
	if got := scrape(t, s.MetricsHandler()).value(t, "podium_http_requests_total", "route", "/boom/:n", "code", "500"); got != 1 {
		t.Fatalf("the panic's 500 counted %v times", got)
	}
}

// TestInstrumentRedisTopologies: the hook and the pool collector work on a
// Cluster client (commands seen once, pools summed over nodes) and on a
// Sentinel failover client.
func TestInstrumentRedisTopologies(t *testing.T) {
	cluster, err := redistest.StartCluster(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	sentinel, err := redistest.StartSentinel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sentinel.Close)
	for name, rdb := range map[string]redis.UniversalClient{"cluster": cluster.Client(t), "sentinel": sentinel.Client(t)} {
		t.Run(name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			if err := web.InstrumentRedis(reg, rdb); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			for i := range 20 { // keys on every primary
				if err := rdb.Set(ctx, fmt.Sprint("k", i), i, 0).Err(); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error { p.Incr(ctx, "{n}a"); p.Incr(ctx, "{n}b"); return nil }); err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			fams, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fams {
				if _, err := expfmt.MetricFamilyToText(&text, f); err != nil {
					t.Fatal(err)
				}
			}
			m := parseMetrics(t, text.Bytes())
			if n := m.observations(t, "podium_redis_command_duration_seconds", "command", "set"); n != 20 {
				t.Errorf("set: %d observations, want 20", n)
			}
			if n := m.observations(t, "podium_redis_command_duration_seconds", "command", "multi"); n != 1 {
				t.Errorf("transaction: %d observations, want 1", n)
			}
			if got := m.value(t, "podium_redis_pool_connections", "pool", "main"); got < 1 {
				t.Errorf("pool connections: %v", got)
			}
		})
	}
}
