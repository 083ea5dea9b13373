package board

import (
	"strconv"
	"time"
)

// WindowSize is how many buckets window k holds, and whether they are hours.
func WindowSize(k Kind) (n int, hourly bool) {
	switch k {
	case Last24h:
		return 24, true
	case Last7d:
		return 7, false
	case Last30d:
		return 30, false
	}
	return 0, false
}

// WindowCovers says, for people, what window k covers: "the current hour
// and the 23 before it".
func WindowCovers(k Kind) string {
	n, hourly := WindowSize(k)
	if hourly {
		return "the current hour and the " + strconv.Itoa(n-1) + " before it"
	}
	return "today and the " + strconv.Itoa(n-1) + " days before"
}

// BucketAt is the id of window k's bucket holding t: an hour in UTC
// ("2026-11-22T13") or a day in the board's zone ("2026-11-22"). Ids sort
// as text in time order.
func (b *Board) BucketAt(k Kind, t time.Time) string {
	if _, hourly := WindowSize(k); hourly {
		return t.UTC().Format("2006-01-02T15")
	}
	return t.In(b.Location()).Format(time.DateOnly)
}

// OldestBucket is the id of the oldest bucket window k holds at now; every
// bucket sorting before it has left the window.
func (b *Board) OldestBucket(k Kind, now time.Time) string {
	n, hourly := WindowSize(k)
	if hourly {
		return now.UTC().Truncate(time.Hour).Add(-time.Duration(n-1) * time.Hour).Format("2006-01-02T15")
	}
	y, m, d := now.In(b.Location()).Date()
	return time.Date(y, m, d-(n-1), 12, 0, 0, 0, time.UTC).Format(time.DateOnly)
}
