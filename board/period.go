package board

import (
	"fmt"
	"strconv"
	"time"
)

// Kind is a period length. Its string form is what URLs and forms carry.
type Kind string

// The period kinds a board may enable.
const (
	Daily   Kind = "day"
	Weekly  Kind = "week"
	Monthly Kind = "month"
	Yearly  Kind = "year"
	// Custom periods follow the board's own schedule (board/schedule.go): a
	// cron expression or a fixed interval from an anchor.
	Custom  Kind = "custom"
	AllTime Kind = "all"
	// Rolling windows (redisstore/window.go): the standings of the last 24 hours,
	// 7 days or 30 days, made of hourly or daily buckets. Like all time, a
	// window is one sorted set that never closes and has no past.
	Last24h Kind = "last24h"
	Last7d  Kind = "last7d"
	Last30d Kind = "last30d"
)

// Kinds lists every kind: the calendar ones from shortest to longest, the
// board's own schedule, all time, then the rolling windows; pages show tabs
// in this order.
var Kinds = []Kind{Daily, Weekly, Monthly, Yearly, Custom, AllTime, Last24h, Last7d, Last30d}

// kindNames is what errors list as the accepted kinds.
const kindNames = "day, week, month, year, custom, all, last24h, last7d, last30d"

// ParseKind accepts the URL form of a kind ("day", "week", ...).
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case Daily, Weekly, Monthly, Yearly, Custom, AllTime, Last24h, Last7d, Last30d:
		return k, nil
	}
	return "", fmt.Errorf("%w: period %q is not one of %s", ErrInvalidPeriod, s, kindNames)
}

// Calendar reports whether periods of kind k follow one another on the
// calendar, or the board's own schedule: they have keys, start and end, close
// and are archived. All time and the rolling windows are single, endless
// periods.
func (k Kind) Calendar() bool {
	switch k {
	case Daily, Weekly, Monthly, Yearly, Custom:
		return true
	}
	return false
}

// Rolling reports whether k is a rolling window.
func (k Kind) Rolling() bool { return k == Last24h || k == Last7d || k == Last30d }

// Period is one concrete period of a kind: a day, an ISO week, a month, a year,
// a period of the board's schedule, or all time. Start is inclusive and End
// exclusive, both in the zone the period was computed in; the all-time period
// has zero Start and End.
type Period struct {
	Kind  Kind
	Key   string // "2026-11-22", "2026-W47", "2026-11", "2026", "20261204T1700Z", or "" for all time
	Start time.Time
	End   time.Time
	sched *Schedule // a custom period's schedule: its previous and next
}

// Ended tells whether the period is over at now: closed, its standings
// final. All time never ends.
func (p Period) Ended(now time.Time) bool { return p.Kind.Calendar() && !p.End.After(now) }

// String is the period's canonical identity, "week:2026-W47" or "all".
func (p Period) String() string {
	if !p.Kind.Calendar() {
		return string(p.Kind)
	}
	return string(p.Kind) + ":" + p.Key
}

// PeriodAt is the calendar period of kind k that contains t, computed in
// loc. A custom period needs its board's schedule: Board.Current.
func PeriodAt(k Kind, t time.Time, loc *time.Location) Period {
	t = t.In(loc)
	y, m, d := t.Date()
	switch k {
	case Daily:
		return dayPeriod(y, m, d, loc)
	case Weekly:
		wy, w := t.ISOWeek()
		return weekPeriod(wy, w, loc)
	case Monthly:
		return monthPeriod(y, m, loc)
	case Yearly:
		return yearPeriod(y, loc)
	}
	return Period{Kind: k}
}

// Prev is the period just before p; all time has none and returns itself.
func (p Period) Prev() Period { return p.step(-1) }

// Next is the period just after p; all time has none and returns itself.
func (p Period) Next() Period { return p.step(1) }

func (p Period) step(dir int) Period {
	if p.Kind == Custom && p.sched != nil {
		if dir < 0 {
			return p.sched.PeriodAt(p.Start.Add(-time.Nanosecond))
		}
		return p.sched.PeriodAt(p.End)
	}
	if !p.Kind.Calendar() || p.Kind == Custom {
		return p
	}
	loc := p.Start.Location()
	if dir < 0 {
		// The last instant of the previous period is just before Start; stepping by
		// period boundaries (never by subtracting one from a week number) keeps ISO
		// week-years and DST right.
		return PeriodAt(p.Kind, p.Start.Add(-time.Nanosecond), loc)
	}
	return PeriodAt(p.Kind, p.End, loc)
}

// The years a period may span, ends included. An RFC 3339 timestamp, and so
// the API's JSON, has four-digit years: a period that ends at 10000-01-01T00:00
// cannot be shown, so 9999-12-30 is the last day, 9999-W51 the last week,
// 9999-11 the last month and 9998 the last year.
const (
	MinYear = 1
	MaxYear = 9999
)

// InRange reports whether p starts and ends within years MinYear-MaxYear in its
// own zone, the years a period can be shown in. PeriodAt, Prev and Next may
// step outside (the day before 0001-01-01); ParsePeriod never returns such a
// period, and links to one are not worth offering.
func (p Period) InRange() bool {
	if !p.Kind.Calendar() {
		return true
	}
	if p.Kind == Custom { // keys hold a start in these years (board/schedule.go)
		s := p.Start.UTC().Year()
		return s >= minScheduleYear && s <= maxScheduleYear
	}
	return p.Start.Year() >= MinYear && p.End.Year() <= MaxYear
}

// Contains reports whether t falls inside p.
func (p Period) Contains(t time.Time) bool {
	if !p.Kind.Calendar() {
		return true
	}
	return !t.Before(p.Start) && t.Before(p.End)
}

// midnight is the first instant of a calendar date in loc (y, m, d may be out
// of range, as time.Date allows). Where a zone skips midnight (São Paulo's old
// DST began at 00:00), time.Date lands in the previous day; the day then starts
// at the transition instead.
func midnight(y int, m time.Month, d int, loc *time.Location) time.Time {
	y, m, d = time.Date(y, m, d, 12, 0, 0, 0, time.UTC).Date()
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if ty, tm, td := t.Date(); ty != y || tm != m || td != d {
		_, end := t.ZoneBounds()
		if !end.IsZero() {
			return end.In(loc)
		}
	}
	return t
}

func dayPeriod(y int, m time.Month, d int, loc *time.Location) Period {
	return Period{
		Kind:  Daily,
		Key:   fmt.Sprintf("%04d-%02d-%02d", y, int(m), d),
		Start: midnight(y, m, d, loc),
		End:   midnight(y, m, d+1, loc),
	}
}

// isoWeekMonday is the Monday that starts ISO week w of ISO week-year wy:
// 4 January is always in week 1.
func isoWeekMonday(wy, w int, loc *time.Location) time.Time {
	jan4 := time.Date(wy, time.January, 4, 12, 0, 0, 0, time.UTC)
	back := (int(jan4.Weekday()) + 6) % 7 // days since Monday
	return midnight(wy, time.January, 4-back+(w-1)*7, loc)
}

func weekPeriod(wy, w int, loc *time.Location) Period {
	return Period{
		Kind:  Weekly,
		Key:   fmt.Sprintf("%04d-W%02d", wy, w),
		Start: isoWeekMonday(wy, w, loc),
		End:   isoWeekMonday(wy, w+1, loc),
	}
}

// weeksIn is the number of ISO weeks of week-year wy: 53 when 28 December is in week 53.
func weeksIn(wy int) int {
	_, w := time.Date(wy, time.December, 28, 12, 0, 0, 0, time.UTC).ISOWeek()
	return w
}

func monthPeriod(y int, m time.Month, loc *time.Location) Period {
	return Period{
		Kind:  Monthly,
		Key:   fmt.Sprintf("%04d-%02d", y, int(m)),
		Start: midnight(y, m, 1, loc),
		End:   midnight(y, m+1, 1, loc),
	}
}

func yearPeriod(y int, loc *time.Location) Period {
	return Period{
		Kind:  Yearly,
		Key:   fmt.Sprintf("%04d", y),
		Start: midnight(y, time.January, 1, loc),
		End:   midnight(y+1, time.January, 1, loc),
	}
}

// ParsePeriod reads a period key of kind k as it appears in URLs and Redis keys.
// It accepts only the canonical form, so a key parses back to the same string it
// was made from: "2026-11-22", "2026-W47", "2026-11", "2026"; all time takes ""
// or "all". The period must lie within years MinYear-MaxYear (see InRange).
func ParsePeriod(k Kind, key string, loc *time.Location) (Period, error) {
	bad := func(why string) (Period, error) {
		return Period{}, fmt.Errorf("%w: %s key %q %s", ErrInvalidPeriod, k, key, why)
	}
	var p Period
	switch k {
	case Custom:
		return Period{}, fmt.Errorf("%w: a custom period needs its board's schedule (Board.PeriodOf)", ErrInvalidPeriod)
	case AllTime, Last24h, Last7d, Last30d:
		if key != "" && key != string(k) {
			return bad(fmt.Sprintf("must be empty or %q", k))
		}
		return Period{Kind: k}, nil
	case Yearly:
		y, ok := digits(key, 0, 4)
		if !ok || len(key) != 4 {
			return bad("is not a year like 2026")
		}
		p = yearPeriod(y, loc)
	case Monthly:
		y, ok1 := digits(key, 0, 4)
		m, ok2 := digits(key, 5, 2)
		if !ok1 || !ok2 || len(key) != 7 || key[4] != '-' {
			return bad("is not a month like 2026-11")
		}
		if m < 1 || m > 12 {
			return bad("has no such month")
		}
		p = monthPeriod(y, time.Month(m), loc)
	case Weekly:
		y, ok1 := digits(key, 0, 4)
		w, ok2 := digits(key, 6, 2)
		if !ok1 || !ok2 || len(key) != 8 || key[4] != '-' || key[5] != 'W' {
			return bad("is not an ISO week like 2026-W47")
		}
		if w < 1 || w > weeksIn(y) {
			return bad(fmt.Sprintf("is outside weeks 1-%d of %04d", weeksIn(y), y))
		}
		p = weekPeriod(y, w, loc)
	case Daily:
		y, ok1 := digits(key, 0, 4)
		m, ok2 := digits(key, 5, 2)
		d, ok3 := digits(key, 8, 2)
		if !ok1 || !ok2 || !ok3 || len(key) != 10 || key[4] != '-' || key[7] != '-' {
			return bad("is not a date like 2026-11-22")
		}
		if m < 1 || m > 12 || d < 1 || d > daysIn(y, time.Month(m)) {
			return bad("is not a date on the calendar")
		}
		p = dayPeriod(y, time.Month(m), d, loc)
	default:
		return Period{}, fmt.Errorf("%w: unknown period kind %q", ErrInvalidPeriod, k)
	}
	if !p.InRange() {
		edge := "starts on " + p.Start.Format(time.DateOnly)
		if p.Start.Year() >= MinYear {
			edge = "ends at " + p.End.Format("2006-01-02 15:04")
		}
		return bad(fmt.Sprintf("is out of range: a period must start and end within years %04d-%04d, and this one %s", MinYear, MaxYear, edge))
	}
	return p, nil
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 12, 0, 0, 0, time.UTC).Day()
}

// digits reads n ASCII digits of s at off; signs, spaces and short input fail.
func digits(s string, off, n int) (int, bool) {
	if off+n > len(s) {
		return 0, false
	}
	for i := off; i < off+n; i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.Atoi(s[off : off+n])
	return v, err == nil
}

// ClosedBefore lists, for each calendar kind the board enables, the n
// periods before the one in progress at now, newest first: where an outside
// writer's keys are to be found soon after they close.
func (b *Board) ClosedBefore(now time.Time, n int) []Period {
	var out []Period
	for _, k := range b.Periods {
		if !k.Calendar() {
			continue
		}
		p := b.Current(k, now)
		for range n {
			if p = p.Prev(); !p.InRange() {
				break
			}
			out = append(out, p)
		}
	}
	return out
}
