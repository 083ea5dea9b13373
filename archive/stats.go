package archive

import (
	"sync/atomic"
	"time"
)

// Stats is what an Archiver did since the process started, for /metrics.
type Stats struct {
	Passes        int64     // passes of Run: every board's due periods, then the audit log
	FailedPasses  int64     // passes that ended with an error (the next pass tries again)
	PeriodsCopied int64     // periods copied to the archive (first, final and operators' passes)
	RowsCopied    int64     // rows those copies wrote
	Expired       int64     // archived periods whose keys were set to expire from Redis
	Dropped       int64     // archived copies dropped because their period was reset
	AuditCopied   int64     // audit entries copied to the archive
	LastPass      time.Time // when the last pass ended; zero: none yet
	LastSuccess   time.Time // when the last pass without an error ended
}

// stats are an Archiver's running totals; its zero value is ready.
type stats struct {
	passes, failed, copied, rows, expired, dropped, audit atomic.Int64
	lastPass, lastSuccess                                 atomic.Int64 // unix nanoseconds
}

// endPass records a pass of Run.
func (s *stats) endPass(audit int, ok bool) {
	now := time.Now().UnixNano()
	s.passes.Add(1)
	s.audit.Add(int64(audit))
	s.lastPass.Store(now)
	if ok {
		s.lastSuccess.Store(now)
	} else {
		s.failed.Add(1)
	}
}

// Stats reads the archiver's totals.
func (a *Archiver) Stats() Stats {
	s := &a.stats
	return Stats{
		Passes: s.passes.Load(), FailedPasses: s.failed.Load(), PeriodsCopied: s.copied.Load(), RowsCopied: s.rows.Load(),
		Expired: s.expired.Load(), Dropped: s.dropped.Load(), AuditCopied: s.audit.Load(),
		LastPass: unixNano(s.lastPass.Load()), LastSuccess: unixNano(s.lastSuccess.Load()),
	}
}

func unixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}
