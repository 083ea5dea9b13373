package board

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
)

// A board's own schedule (kind Custom): its periods run from one boundary of
// the schedule to the next, in the board's time zone, instead of the
// calendar's. Two forms:
//
//   - a cron expression of five fields, or a descriptor such as @weekly:
//     "0 18 * * FRI" starts a period every Friday at 18:00, the board's
//     time; parsed by robfig/cron, whose matching follows the zone's DST
//     (a time a DST change skips or repeats fires as robfig decides, once);
//   - a fixed interval from an anchor, "every 72h from 2026-12-01T00:00":
//     minutes (m) and hours (h) are elapsed time, so across a DST change
//     the boundaries keep their spacing and move on the wall clock; days
//     (d) and weeks (w) are calendar days, so the boundaries keep the
//     anchor's time of day ("every 3d from 2026-12-01T18:00").
//
// A period's key is its start in UTC to the minute, "20261204T1700Z": it
// parses back to the same string, sorts as it runs, and never repeats when
// a DST change repeats an hour of local time.

// Schedule bounds: periods shorter than an hour would flood Redis and the
// archive with keys; a schedule must fire within robfig's five-year search.
const (
	MinSchedulePeriod = time.Hour
	// Custom periods start within these years (UTC).
	minScheduleYear = 2000
	maxScheduleYear = 9000
	MaxScheduleLen  = 100
	MaxScheduleName = 24
	// DefaultScheduleName names a schedule's periods when the board does not.
	DefaultScheduleName = "Round"
)

// Sched is the board's parsed schedule. A board whose schedule does not
// parse (Validate refuses it; a stored one could only be damaged) runs
// daily from midnight rather than have no periods.
func (b *Board) Sched() *Schedule {
	if b.sched == nil || b.sched.spec != b.Schedule || b.sched.loc != b.Location() {
		s, err := ParseSchedule(b.Schedule, b.ScheduleName, b.Location())
		if err != nil {
			s, _ = ParseSchedule("every 1d from 2000-01-01T00:00", b.ScheduleName, b.Location())
		}
		b.sched = s
	}
	return b.sched
}

// PeriodOf reads a period of kind k of the board from its key, in the
// board's zone and, for kind Custom, on its schedule (see ParsePeriod).
func (b *Board) PeriodOf(k Kind, key string) (Period, error) {
	if k == Custom {
		return b.Sched().parseKey(key)
	}
	return ParsePeriod(k, key, b.Location())
}

// Schedule is a parsed board schedule in a zone.
type Schedule struct {
	Name   string // what a period is called: "Round", "Sprint"
	spec   string
	cron   cron.Schedule // nil for an interval
	every  time.Duration // elapsed interval (m, h)
	days   int           // calendar interval (d, w)
	anchor time.Time     // the interval's first boundary, in loc
	loc    *time.Location
}

var (
	cronParser   = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	everyPattern = regexp.MustCompile(`^every ([1-9][0-9]{0,5})(m|h|d|w) from ([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2})$`)
)

// ParseSchedule reads a schedule in zone loc; name "" is DefaultScheduleName.
func ParseSchedule(spec, name string, loc *time.Location) (*Schedule, error) {
	if name == "" {
		name = DefaultScheduleName
	}
	s := &Schedule{Name: name, spec: spec, loc: loc}
	if len(spec) > MaxScheduleLen {
		return nil, fmt.Errorf("is longer than %d characters", MaxScheduleLen)
	}
	if m := everyPattern.FindStringSubmatch(spec); m != nil {
		if err := s.parseEvery(m[1], m[2], m[3]); err != nil {
			return nil, err
		}
		return s, nil
	}
	if strings.HasPrefix(spec, "every") {
		return nil, fmt.Errorf("%q is not an interval like \"every 72h from 2026-12-01T00:00\" (units m, h, d or w; the anchor in the board's time zone)", spec)
	}
	if strings.Contains(spec, "TZ=") || strings.HasPrefix(spec, "@every") {
		return nil, fmt.Errorf("%q: the schedule runs in the board's time zone, and intervals are written \"every 72h from 2026-12-01T00:00\"", spec)
	}
	c, err := cronParser.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("%q is not a cron expression like \"0 18 * * FRI\": %v", spec, err)
	}
	cs, ok := c.(*cron.SpecSchedule)
	if !ok {
		return nil, fmt.Errorf("%q is not a cron expression like \"0 18 * * FRI\"", spec)
	}
	cs.Location = loc
	s.cron = cs
	return s, s.checkCronOnce()
}

// checked remembers checkCron's verdicts: definitions are validated on every
// load, and a check reads a hundred fires or more (board/schedule_check.go).
// Bounded: past cronChecksKept specs, checks are simply not remembered.
var checked sync.Map // spec + "\x00" + zone -> error (nil as errNone)

const cronChecksKept = 1000

var (
	checkedCount atomic.Int64
	errNone      = errors.New("")
)

func (s *Schedule) checkCronOnce() error {
	k := s.spec + "\x00" + s.loc.String()
	if v, ok := checked.Load(k); ok {
		if v.(error) == errNone {
			return nil
		}
		return v.(error)
	}
	_, err := s.checkCron()
	if checkedCount.Load() < cronChecksKept {
		v := errNone
		if err != nil {
			v = err
		}
		if _, loaded := checked.LoadOrStore(k, v); !loaded {
			checkedCount.Add(1)
		}
	}
	return err
}

func (s *Schedule) parseEvery(n, unit, at string) error {
	count, _ := strconv.Atoi(n)
	anchor, err := time.ParseInLocation("2006-01-02T15:04", at, s.loc)
	if err != nil {
		return fmt.Errorf("the anchor %q is not a date and time like 2026-12-01T00:00", at)
	}
	if anchor.Year() < minScheduleYear || anchor.Year() > maxScheduleYear {
		return fmt.Errorf("the anchor %q must be in years %d-%d", at, minScheduleYear, maxScheduleYear)
	}
	s.anchor = anchor
	switch unit {
	case "m":
		s.every = time.Duration(count) * time.Minute
	case "h":
		s.every = time.Duration(count) * time.Hour
	case "d":
		s.days = count
	case "w":
		s.days = 7 * count
	}
	if s.days > 0 && s.days > 3660 || s.every > 0 && s.every > 3660*24*time.Hour {
		return fmt.Errorf("an interval of %s%s is longer than ten years", n, unit)
	}
	if s.days == 0 && s.every < MinSchedulePeriod {
		return fmt.Errorf("an interval of %s%s is too short: a period must last at least an hour", n, unit)
	}
	return nil
}

// String is the schedule as written.
func (s *Schedule) String() string { return s.spec }

// next is the first boundary after t.
func (s *Schedule) next(t time.Time) time.Time {
	if s.cron != nil {
		return s.cron.Next(t.In(s.loc))
	}
	if s.days > 0 {
		return s.dayBoundary(s.dayIndex(t) + 1)
	}
	return s.floor(t).Add(s.every)
}

// floor is the last boundary at or before t.
func (s *Schedule) floor(t time.Time) time.Time {
	t = t.In(s.loc)
	switch {
	case s.cron != nil:
		return s.cronFloor(t)
	case s.days > 0:
		return s.dayBoundary(s.dayIndex(t))
	}
	// In whole seconds since the anchor: a time.Duration overflows past
	// 292 years, and keys reach from 2000 to 9000.
	every := int64(s.every / time.Second)
	d := t.Unix() - s.anchor.Unix()
	n := d / every
	if d < 0 && d%every != 0 {
		n--
	}
	return time.Unix(s.anchor.Unix()+n*every, 0).In(s.loc)
}

// cronFloor finds the last fire at or before t: robfig's schedules only
// look ahead. Ever further back from t, the first window with a fire in it
// is walked a few fires, which reaches t for most schedules; past them it
// is narrowed to a minute by bisection (a fire follows a time at or before
// t exactly when that time is before the last fire): an hourly schedule
// that pauses for months has thousands of fires before its pause.
func (s *Schedule) cronFloor(t time.Time) time.Time {
	for back := 2 * MinSchedulePeriod; back < 20*366*24*time.Hour; back *= 2 {
		f := s.cron.Next(t.Add(-back))
		if f.IsZero() || f.After(t) {
			continue
		}
		for range 64 {
			n := s.cron.Next(f)
			if n.IsZero() || n.After(t) {
				return f
			}
			f = n
		}
		lo, hi := f, t
		for hi.Sub(lo) > time.Minute { // fires are whole minutes
			mid := lo.Add(hi.Sub(lo) / 2)
			if n := s.cron.Next(mid); !n.IsZero() && !n.After(t) {
				lo = mid
			} else {
				hi = mid
			}
		}
		if n := s.cron.Next(lo); !n.IsZero() && !n.After(t) {
			return n
		}
		return lo // the last fire walked
	}
	return time.Time{}
}

// dayIndex is the index of the last calendar-day boundary at or before t:
// estimated from elapsed days, then corrected, since DST makes days of 23
// and 25 hours.
func (s *Schedule) dayIndex(t time.Time) int {
	days := int((t.Unix() - s.anchor.Unix()) / 86400) // not t.Sub: see floor
	if t.Before(s.anchor) {
		days -= s.days
	}
	i := days / s.days
	for s.dayBoundary(i).After(t) {
		i--
	}
	for !s.dayBoundary(i + 1).After(t) {
		i++
	}
	return i
}

// dayBoundary is boundary i of a calendar-day interval: the anchor's time of
// day, i×days days after its date (time.Date moves a time a DST change
// skips forward).
func (s *Schedule) dayBoundary(i int) time.Time {
	a := s.anchor
	return time.Date(a.Year(), a.Month(), a.Day()+i*s.days, a.Hour(), a.Minute(), 0, 0, s.loc)
}

// PeriodAt is the period of the schedule that holds t.
func (s *Schedule) PeriodAt(t time.Time) Period {
	start := s.floor(t)
	if start.IsZero() { // before a cron schedule's first fire in 20 years
		start = t.Truncate(time.Minute)
	}
	return s.periodFrom(start)
}

// periodFrom is the period that starts at start and ends at the next
// boundary.
func (s *Schedule) periodFrom(start time.Time) Period {
	start = start.In(s.loc)
	end := s.next(start)
	if end.IsZero() { // a cron schedule that stops firing: the period ends a year on
		end = start.AddDate(1, 0, 0)
	}
	return Period{Kind: Custom, Key: start.UTC().Format(customKeyLayout), Start: start, End: end.In(s.loc), sched: s}
}

// customKeyLayout is a custom period's key: its start, UTC, to the minute.
const customKeyLayout = "20060102T1504Z"

// parseKey reads a custom period's key. Any minute is accepted, not only
// the schedule's boundaries: periods kept under an earlier schedule stay
// readable (and archivable) after the schedule changes; such a period ends
// at the schedule's next boundary.
func (s *Schedule) parseKey(key string) (Period, error) {
	t, err := time.Parse(customKeyLayout, key)
	if err != nil || len(key) != len(customKeyLayout) || t.Format(customKeyLayout) != key {
		return Period{}, fmt.Errorf("%w: custom key %q is not a start like 20261204T1700Z (UTC, to the minute)", ErrInvalidPeriod, key)
	}
	if t.Year() < minScheduleYear || t.Year() > maxScheduleYear {
		return Period{}, fmt.Errorf("%w: custom key %q is out of range: a period must start in years %d-%d", ErrInvalidPeriod, key, minScheduleYear, maxScheduleYear)
	}
	return s.periodFrom(t), nil
}
