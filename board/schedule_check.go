package board

import (
	"fmt"
	"math/bits"
	"strconv"
	"time"

	"github.com/robfig/cron/v3"
)

// A cron schedule is refused when it never fires or when two of its fires
// can be less than MinSchedulePeriod apart. Fires share a minute field, so
// a schedule with one minute value fires whole hours apart on the wall
// clock; only a change of the zone's offset (a DST change, 30 minutes on
// Lord Howe Island) can bring two fires closer in elapsed time, and then
// both lie within a day of it. The check therefore reads the fires around
// each of the year's offset changes, not the year's every fire (8,784 for
// an hourly schedule, some 30 ms).

// checkYear is the leap year a check reads: the fields repeat within a year,
// and a leap year has 29 February.
const checkYear = 2028

// checkCron refuses a cron schedule that never fires, or whose periods can
// be shorter than MinSchedulePeriod; walked is the number of fires read.
func (s *Schedule) checkCron() (walked int, err error) {
	from := time.Date(checkYear, 1, 1, 0, 0, 0, 0, s.loc)
	end := from.AddDate(1, 0, 1)
	first := s.cron.Next(from)
	if first.IsZero() {
		return 1, fmt.Errorf("%q never fires", s.spec)
	}
	spec, ok := s.cron.(*cron.SpecSchedule)
	if !ok || bits.OnesCount64(spec.Minute&^(1<<63)) > 1 {
		// Two minutes an hour are less than an hour apart: the year's
		// walk finds them at its first firing hour.
		return 0, s.checkCronYear()
	}
	// The first day's fires, then a day either side of each offset change.
	walked, err = s.checkGaps(from, first.Add(26*time.Hour), end)
	for t := from; err == nil; {
		_, change := t.ZoneBounds()
		if change.IsZero() || !change.Before(end) {
			break
		}
		n := 0
		n, err = s.checkGaps(change.Add(-26*time.Hour), change.Add(26*time.Hour), end)
		walked += n
		t = change
	}
	return walked, err
}

// checkGaps refuses two consecutive fires less than MinSchedulePeriod apart
// among those from after from until before until (and end); walked is the
// number of fires read.
func (s *Schedule) checkGaps(from, until, end time.Time) (walked int, err error) {
	t := s.cron.Next(from)
	for walked = 1; !t.IsZero() && t.Before(until) && t.Before(end); walked++ {
		n := s.cron.Next(t)
		if n.IsZero() {
			break
		}
		if n.Sub(t) < MinSchedulePeriod {
			return walked, fmt.Errorf("%q starts periods %s apart (at %s and %s); a period must last at least an hour", s.spec, minutes(n.Sub(t)), t.Format("15:04"), n.Format("15:04"))
		}
		t = n
	}
	return walked, nil
}

// checkCronYear is checkCron by every fire of the year: the answer for a
// schedule with several minutes an hour, which it refuses at its first
// firing hour.
func (s *Schedule) checkCronYear() error {
	from := time.Date(checkYear, 1, 1, 0, 0, 0, 0, s.loc)
	if s.cron.Next(from).IsZero() {
		return fmt.Errorf("%q never fires", s.spec)
	}
	_, err := s.checkGaps(from, from.AddDate(1, 0, 1), from.AddDate(1, 0, 1))
	return err
}

// minutes writes a gap under an hour: "10 min".
func minutes(d time.Duration) string { return strconv.Itoa(int(d.Minutes())) + " min" }
