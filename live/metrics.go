package live

import (
	"math"
	"sync/atomic"
	"time"
)

// The hub's timings, kept here so that /metrics can read them with Stats
// without this package knowing Prometheus: two fixed-bucket histograms the
// tick fills and a scrape copies.

// TickBuckets are the upper bounds, in seconds, of the tick duration
// histogram: a tick re-reads dirty views in one pipeline and encodes frames.
var TickBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}

// FrameLatencyBuckets are the upper bounds, in seconds, of the
// notification-to-frame histogram; the tick (100ms by default) sets its floor.
var FrameLatencyBuckets = []float64{.005, .01, .025, .05, .1, .15, .2, .3, .5, 1, 2.5, 5, 10}

// maxBuckets bounds the bucket lists above, so a histogram is a fixed array
// of counters that works at its zero value.
const maxBuckets = 16

// Histogram is a copy of a distribution: Counts[i] observations were at most
// Bounds[i] seconds (cumulative), Count in all, Sum their total.
type Histogram struct {
	Bounds []float64
	Counts []uint64
	Count  uint64
	Sum    float64
}

// histogram counts observations into fixed buckets without locks; the last
// counter is +Inf. Its zero value is ready.
type histogram struct {
	counts [maxBuckets + 1]atomic.Uint64
	sum    atomic.Uint64 // float64 bits
}

func (h *histogram) observe(bounds []float64, v float64) {
	i := 0
	for i < len(bounds) && v > bounds[i] {
		i++
	}
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

func (h *histogram) snapshot(bounds []float64) Histogram {
	out := Histogram{Bounds: bounds, Counts: make([]uint64, len(bounds))}
	for i := range len(bounds) + 1 {
		out.Count += h.counts[i].Load()
		if i < len(bounds) {
			out.Counts[i] = out.Count
		}
	}
	out.Sum = math.Float64frombits(h.sum.Load())
	return out
}

// timings are the hub's histograms and what they need between calls: the
// first keyspace notification no tick has taken yet, and the one the
// current tick took (unix nanoseconds, 0: none).
type timings struct {
	tick, frame      histogram
	pending, current atomic.Int64
}

// notified notes that a keyspace notification arrived. Only the first one
// since the last tick matters: it has waited longest for its frame. The hub
// calls it for every notification, so it costs one atomic load then.
func (c *counters) notified() {
	if c.timings.pending.Load() == 0 {
		c.timings.pending.CompareAndSwap(0, time.Now().UnixNano())
	}
}

// beginTick takes the notifications that arrived since the last tick into
// this one; the func it returns ends the tick and records its duration when
// it read any view (idle ticks would drown the histogram). The hub calls it
// as `defer h.stats.beginTick()()` first thing in tick.
func (c *counters) beginTick() func() {
	start := time.Now()
	c.timings.current.Store(c.timings.pending.Swap(0))
	reads := c.reads.Load()
	return func() {
		if c.reads.Load() != reads {
			c.timings.tick.observe(TickBuckets, time.Since(start).Seconds())
		}
	}
}

// carry hands notification time t, of a tick that held a view's frame, to
// the next tick (unless an older one waits there already): the wait is
// recorded when the held frame goes out.
func (c *counters) carry(t int64) {
	for t != 0 {
		p := c.timings.pending.Load()
		if p != 0 && p <= t {
			return
		}
		if c.timings.pending.CompareAndSwap(p, t) {
			return
		}
	}
}

// framed records, once per tick, how long the oldest notification the tick
// took waited until a changed view's frame was queued for its clients. A
// tick that changed no frame records nothing, and the next tick forgets it.
func (c *counters) framed() {
	if t := c.timings.current.Swap(0); t != 0 {
		c.timings.frame.observe(FrameLatencyBuckets, time.Since(time.Unix(0, t)).Seconds())
	}
}
