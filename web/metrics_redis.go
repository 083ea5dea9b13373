package web

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// redisBuckets are the Redis latency histogram's upper bounds, in seconds:
// a command on a local Redis takes a fraction of a millisecond; a pipeline
// of a tick's views or an archive page takes longer.
var redisBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}

// InstrumentRedis measures a Redis client for /metrics: a hook times every
// command by name and counts its errors, and a collector reads the
// connection pool at each scrape. It works for every client go-redis
// makes (single, Cluster, Sentinel failover), since each has AddHook and
// PoolStats; on a Cluster each command is seen once, whichever node served
// it, and the pool figures are the sum of every node's.
//
// A pipeline is one observation, labelled "pipeline" ("multi" for a
// transaction): its commands go in one round trip and have no times of
// their own. Its commands' errors are counted by their own names.
// The hook stays on the client for its life: instrument a client once per
// registry.
func InstrumentRedis(reg prometheus.Registerer, rdb redis.UniversalClient) error {
	h := &redisHook{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "podium_redis_command_duration_seconds",
			Help:    `Time Redis commands took, round trip included, by command name; "pipeline" and "multi" are whole pipelines and transactions.`,
			Buckets: redisBuckets,
		}, []string{"command"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podium_redis_errors_total",
			Help: "Redis commands that failed (a missing key, redis.Nil, is no failure), by command name.",
		}, []string{"command"}),
	}
	for _, c := range []prometheus.Collector{h.duration, h.errors, poolCollector{rdb}} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	rdb.AddHook(h)
	return nil
}

// redisHook is a go-redis hook that records each command.
type redisHook struct {
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
}

// DialHook leaves dialling alone: a connection that fails makes the
// command that needed it fail, which is counted, and dials show as pool
// misses. (A Cluster client's own hooks never see its nodes' dials.)
func (h *redisHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (h *redisHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		name := commandName(cmd)
		h.duration.WithLabelValues(name).Observe(time.Since(start).Seconds())
		if failed(err) {
			h.errors.WithLabelValues(name).Inc()
		}
		return err
	}
}

func (h *redisHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		name := "pipeline"
		if len(cmds) > 0 && cmds[0].Name() == "multi" {
			name = "multi"
		}
		h.duration.WithLabelValues(name).Observe(time.Since(start).Seconds())
		for _, cmd := range cmds {
			if failed(cmd.Err()) {
				h.errors.WithLabelValues(commandName(cmd)).Inc()
			}
		}
		return err
	}
}

// commandName is a command's lower-case name: the commands this program
// sends, a bounded set.
func commandName(cmd redis.Cmder) string {
	if n := cmd.Name(); n != "" {
		return n
	}
	return "unknown"
}

// failed tells Redis failures from answers: redis.Nil (no such key) is an
// answer, a caller that gave up (context canceled) is not Redis failing,
// and NOSCRIPT is how EVALSHA asks for the script that go-redis then sends.
func failed(err error) bool {
	if err == nil || errors.Is(err, redis.Nil) || errors.Is(err, context.Canceled) {
		return false
	}
	return !strings.HasPrefix(err.Error(), "NOSCRIPT")
}

// poolCollector reads a client's connection pools at each scrape: "main"
// for commands, "pipeline" for the separate pool go-redis keeps for
// pipelines.
type poolCollector struct{ rdb redis.UniversalClient }

var (
	poolLabels      = []string{"pool"}
	poolHits        = prometheus.NewDesc("podium_redis_pool_hits_total", "Times a free connection was found in the Redis pool.", poolLabels, nil)
	poolMisses      = prometheus.NewDesc("podium_redis_pool_misses_total", "Times no free connection was in the Redis pool (a new one was dialled).", poolLabels, nil)
	poolTimeouts    = prometheus.NewDesc("podium_redis_pool_timeouts_total", "Times waiting for a Redis pool connection timed out.", poolLabels, nil)
	poolWaits       = prometheus.NewDesc("podium_redis_pool_waits_total", "Times a command waited for a Redis pool connection.", poolLabels, nil)
	poolWaitSeconds = prometheus.NewDesc("podium_redis_pool_wait_seconds_total", "Time commands spent waiting for a Redis pool connection.", poolLabels, nil)
	poolConns       = prometheus.NewDesc("podium_redis_pool_connections", "Connections in the Redis pool now, idle or in use.", poolLabels, nil)
	poolIdle        = prometheus.NewDesc("podium_redis_pool_idle_connections", "Idle connections in the Redis pool now.", poolLabels, nil)
	poolStale       = prometheus.NewDesc("podium_redis_pool_stale_connections_total", "Stale connections removed from the Redis pool.", poolLabels, nil)
)

func (poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolHits, poolMisses, poolTimeouts, poolWaits, poolWaitSeconds, poolConns, poolIdle, poolStale} {
		ch <- d
	}
}

func (p poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := p.rdb.PoolStats()
	if st == nil {
		return
	}
	collectPool(ch, "main", st)
	if st.PipelineStats != nil {
		collectPool(ch, "pipeline", (*redis.PoolStats)(st.PipelineStats))
	}
}

func collectPool(ch chan<- prometheus.Metric, pool string, st *redis.PoolStats) {
	m := constMetrics{ch: ch, labels: []string{pool}}
	m.counter(poolHits, float64(st.Hits))
	m.counter(poolMisses, float64(st.Misses))
	m.counter(poolTimeouts, float64(st.Timeouts))
	m.counter(poolWaits, float64(st.WaitCount))
	m.counter(poolWaitSeconds, float64(st.WaitDurationNs)/1e9)
	m.gauge(poolConns, float64(st.TotalConns))
	m.gauge(poolIdle, float64(st.IdleConns))
	m.counter(poolStale, float64(st.StaleConns))
}
