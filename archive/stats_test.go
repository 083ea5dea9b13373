package archive

import (
	"context"
	"testing"
	"time"

	"podium/redisstore"
)

// TestRunStats: each pass of Run is counted, failed or not, with its time.
func TestRunStats(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		f := newFixture(t, db)
		f.clock.Set(f.week().End.Add(time.Minute))
		f.a.Interval = 10 * time.Millisecond
		start := time.Now()
		runUntil(t, f.a, func(st Stats) bool { return st.Passes >= 2 })
		st := f.a.Stats()
		if st.FailedPasses != 0 || st.PeriodsCopied != 1 || st.RowsCopied != fixtureMembers || st.LastSuccess.Before(start) || !st.LastPass.Equal(st.LastSuccess) {
			t.Fatalf("stats %+v", st)
		}

		// Redis gone: every pass fails, and none succeeds.
		rdb := rsrv.Client(t)
		rdb.Close()
		down := &Archiver{Store: redisstore.NewStore(rdb), DB: db, Interval: 10 * time.Millisecond, Log: quiet}
		runUntil(t, down, func(st Stats) bool { return st.FailedPasses >= 2 })
		if st := down.Stats(); st.Passes < st.FailedPasses || !st.LastSuccess.IsZero() || st.LastPass.Before(start) || st.PeriodsCopied != 0 {
			t.Fatalf("stats of failing passes %+v", st)
		}
	})
}

// runUntil runs the archiver until its stats satisfy done.
func runUntil(t *testing.T, a *Archiver, done func(Stats) bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); a.Run(ctx) }()
	defer func() { cancel(); <-stopped }()
	for deadline := time.Now().Add(30 * time.Second); !done(a.Stats()); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: stats %+v", a.Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
