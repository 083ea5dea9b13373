package live

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestHistogramBuckets(t *testing.T) {
	var h histogram
	bounds := []float64{.01, .1, 1}
	for _, v := range []float64{.005, .01, .05, .5, 2, 30} {
		h.observe(bounds, v)
	}
	got := h.snapshot(bounds)
	if want := []uint64{2, 3, 4}; got.Count != 6 || !slices.Equal(got.Counts, want) || math.Abs(got.Sum-32.565) > 1e-9 {
		t.Fatalf("histogram %+v, want counts %v of 6 summing to 32.565", got, want)
	}
	if len(TickBuckets) > maxBuckets || len(FrameLatencyBuckets) > maxBuckets {
		t.Fatal("a bucket list is longer than a histogram holds")
	}
}

// TestTimings follows what the hub does: notifications arrive, a tick takes
// them, sends a frame, and ends; an idle tick records nothing.
func TestTimings(t *testing.T) {
	var c counters
	before := time.Now()
	c.notified()
	// The wait the histogram is to record: a real one, as the hub's clock is.
	time.Sleep(30 * time.Millisecond)
	c.notified() // later: the first one is what waited longest
	end := c.beginTick()
	c.reads.Add(1)
	c.framed()
	c.framed() // a second frame of the same tick is not another observation
	end()
	waited := time.Since(before) // the most it can record, however slow the machine

	c.beginTick()() // idle: no reads, no frame
	end = c.beginTick()
	c.reads.Add(1)
	c.framed() // a frame without a notification (a new view): nothing waited
	end()

	frame := c.timings.frame.snapshot(FrameLatencyBuckets)
	if frame.Count != 1 || frame.Sum < .03 || frame.Sum > waited.Seconds()+.01 { // .01: the hub reads the wall clock
		t.Fatalf("notification to frame: %+v, want one observation of at least 30ms and at most %v", frame, waited)
	}
	if tick := c.timings.tick.snapshot(TickBuckets); tick.Count != 2 {
		t.Fatalf("tick durations: %+v, want the two ticks that read", tick)
	}
	// A tick that took a notification but changed no frame leaves nothing
	// for the next one.
	c.notified()
	c.beginTick()()
	end = c.beginTick()
	c.framed()
	end()
	if frame := c.timings.frame.snapshot(FrameLatencyBuckets); frame.Count != 1 {
		t.Fatalf("a stale notification was counted: %+v", frame)
	}
}

func TestStatsCarryTimings(t *testing.T) {
	h, _ := newTestHub(Options{})
	h.stats.notified()
	h.stats.beginTick()
	h.stats.framed()
	st := h.Stats()
	if st.FrameLatencySeconds.Count != 1 || len(st.FrameLatencySeconds.Bounds) != len(FrameLatencyBuckets) || len(st.TickSeconds.Counts) != len(TickBuckets) {
		t.Fatalf("stats %+v", st)
	}
}
