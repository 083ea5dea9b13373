package main

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"podium/internal/redistest"
)

// TestRunServesMetrics: with METRICS_ADDR the metrics have a listener of
// their own; with METRICS_TOKEN they are on the main address too, to a
// bearer of the token only. They cover HTTP, Redis, the hub and the archiver.
func TestRunServesMetrics(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	token := "0123456789abcdef"
	// Both listeners on port 0: the server logs where each one is.
	s := serve(t, nil, map[string]string{"REDIS_URL": "redis://" + srv.Addr + "/0", "METRICS_ADDR": "127.0.0.1:0", "METRICS_TOKEN": token})
	defer func() {
		if err := s.stop(); err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	m := regexp.MustCompile(`msg=metrics url=(\S+)/metrics`).FindStringSubmatch(s.log.String())
	if m == nil {
		t.Fatalf("the metrics listener's URL is not logged:\n%s", s.log)
	}
	base, metricsBase := s.base, m[1]
	get := func(url, auth string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", url, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	deadline := time.Now().Add(10 * time.Second)
	for code, _ := get(base+"/", ""); code != 200; code, _ = get(base+"/", "") {
		if time.Now().After(deadline) {
			t.Fatalf("not serving: %d", code)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, _ := get(base+"/metrics", "Bearer wrong"); code != 401 {
		t.Fatalf("metrics with a wrong token: %d", code)
	}
	if code, _ := get(base+"/metrics", "Bearer "+token); code != 200 {
		t.Fatalf("metrics with the token: %d", code)
	}
	if code, _ := get(metricsBase+"/", ""); code != 404 {
		t.Fatalf("the metrics listener serves pages: %d", code)
	}
	var body string
	for {
		code, b := get(metricsBase+"/metrics", "")
		if code != 200 {
			t.Fatalf("metrics on their own listener: %d %s", code, b)
		}
		// The archiver's first pass runs at the start.
		if body = b; strings.Contains(body, "podium_archive_passes_total 1") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"podium_http_requests_total", "podium_http_request_duration_seconds", "podium_redis_command_duration_seconds",
		"podium_redis_pool_connections", "podium_live_clients", "podium_live_tick_duration_seconds", "podium_archive_passes_total", "go_goroutines", "process_cpu_seconds_total"} {
		if fams[name] == nil {
			t.Errorf("no %s in\n%s", name, body)
		}
	}
	if !strings.Contains(body, `podium_http_requests_total{code="200",method="GET",route="/"}`) || !strings.Contains(body, "podium_archive_passes_total 1") {
		t.Errorf("the home page or the archiver's pass is not counted:\n%s", body)
	}
}
