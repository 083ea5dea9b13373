package board

import (
	"strings"
	"testing"
	"time"
)

// scheduled is a valid board on schedule spec in zone tz.
func scheduled(t *testing.T, spec, tz string) *Board {
	t.Helper()
	b := &Board{ID: "s", Title: "S", Periods: []Kind{Custom, AllTime}, TimeZone: tz, Schedule: spec}
	b.Normalize()
	if err := b.Validate(); err != nil {
		t.Fatalf("%q: %v", spec, err)
	}
	return b
}

// walk steps from the period holding from through n periods, checking
// that each ends where the next starts, that Prev undoes Next, that each
// key parses back to the same period and that PeriodAt of any instant
// inside finds it; it returns the starts in the zone as "Mon 02 Jan 15:04 MST".
func walk(t *testing.T, b *Board, from time.Time, n int) []string {
	t.Helper()
	var out []string
	p := b.Current(Custom, from)
	for range n {
		out = append(out, p.Start.Format("Mon 02 Jan 2006 15:04 MST"))
		next := p.Next()
		if !next.Start.Equal(p.End) || !p.End.After(p.Start) {
			t.Fatalf("%s ends %s, next starts %s", p.Key, p.End, next.Start)
		}
		if back := next.Prev(); back.Key != p.Key || !back.End.Equal(p.End) {
			t.Fatalf("prev of %s is %s, want %s", next.Key, back.Key, p.Key)
		}
		if q, err := b.PeriodOf(Custom, p.Key); err != nil || q.Key != p.Key || !q.Start.Equal(p.Start) || !q.End.Equal(p.End) {
			t.Fatalf("key %s parses to %v %v", p.Key, q, err)
		}
		for _, at := range []time.Time{p.Start, p.Start.Add(p.End.Sub(p.Start) / 2), p.End.Add(-time.Nanosecond)} {
			if q := b.Current(Custom, at); q.Key != p.Key {
				t.Fatalf("at %s: %s, want %s", at, q.Key, p.Key)
			}
		}
		p = next
	}
	return out
}

// TestCronScheduleAcrossDST: "0 18 * * FRI" in Paris starts every Friday at
// 18:00 on the wall clock, on both sides of the end of summer time
// (Sunday 25 October 2026), so the week across it lasts 169 hours.
func TestCronScheduleAcrossDST(t *testing.T) {
	b := scheduled(t, "0 18 * * FRI", "Europe/Paris")
	got := walk(t, b, time.Date(2026, 10, 14, 12, 0, 0, 0, time.UTC), 4)
	want := []string{"Fri 09 Oct 2026 18:00 CEST", "Fri 16 Oct 2026 18:00 CEST", "Fri 23 Oct 2026 18:00 CEST", "Fri 30 Oct 2026 18:00 CET"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("starts %q, want %q", got, want)
	}
	p := b.Current(Custom, time.Date(2026, 10, 25, 12, 0, 0, 0, time.UTC))
	if p.Key != "20261023T1600Z" || p.End.Sub(p.Start) != 169*time.Hour {
		t.Fatalf("the week across the change: %s lasting %s", p.Key, p.End.Sub(p.Start))
	}
	if p.Title() != "Round of Fri 23 Oct 2026 18:00 – Fri 30 Oct 18:00" || p.Short() != "Round of 23 Oct 2026 18:00" {
		t.Fatalf("title %q, short %q", p.Title(), p.Short())
	}
}

// TestIntervalScheduleAcrossDST: "every 72h" is elapsed time, so after the
// change the boundaries fall at 23:00 on the wall clock; "every 3d" is
// calendar days, so they stay at midnight.
func TestIntervalScheduleAcrossDST(t *testing.T) {
	from := time.Date(2026, 10, 21, 12, 0, 0, 0, time.UTC)
	hours := walk(t, scheduled(t, "every 72h from 2026-10-20T00:00", "Europe/Paris"), from, 4)
	want := []string{"Tue 20 Oct 2026 00:00 CEST", "Fri 23 Oct 2026 00:00 CEST", "Sun 25 Oct 2026 23:00 CET", "Wed 28 Oct 2026 23:00 CET"}
	if strings.Join(hours, "|") != strings.Join(want, "|") {
		t.Fatalf("72h starts %q, want %q", hours, want)
	}
	days := walk(t, scheduled(t, "every 3d from 2026-10-20T00:00", "Europe/Paris"), from, 4)
	want = []string{"Tue 20 Oct 2026 00:00 CEST", "Fri 23 Oct 2026 00:00 CEST", "Mon 26 Oct 2026 00:00 CET", "Thu 29 Oct 2026 00:00 CET"}
	if strings.Join(days, "|") != strings.Join(want, "|") {
		t.Fatalf("3d starts %q, want %q", days, want)
	}
	// Before the anchor the schedule runs too: the periods are a grid.
	b := scheduled(t, "every 72h from 2026-10-20T00:00", "Europe/Paris")
	if p := b.Current(Custom, time.Date(2026, 10, 18, 0, 0, 0, 0, time.UTC)); p.Key != "20261016T2200Z" {
		t.Fatalf("before the anchor: %s", p.Key)
	}
	walk(t, scheduled(t, "every 2w from 2026-03-28T02:30", "Europe/Paris"), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), 6)
	walk(t, scheduled(t, "every 90m from 2026-03-29T00:15", "America/New_York"), time.Date(2026, 3, 7, 0, 0, 0, 0, time.UTC), 40)
	walk(t, scheduled(t, "30 2 * * *", "America/New_York"), time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC), 10)
	walk(t, scheduled(t, "@monthly", "Asia/Tokyo"), time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC), 14)
}

// TestScheduleFarFromItsAnchor: periods as far from the anchor as keys
// reach (years 2000 to 9000) are found at once and in order: elapsed time
// is counted in seconds, which do not overflow as a time.Duration does past
// 292 years.
func TestScheduleFarFromItsAnchor(t *testing.T) {
	for _, spec := range []string{"every 72h from 9000-01-01T00:00", "every 3d from 9000-01-01T00:00", "every 5h from 2000-01-01T00:00", "every 1w from 2000-01-01T00:00"} {
		b := scheduled(t, spec, "Europe/Paris")
		for _, at := range []time.Time{time.Date(2000, 1, 20, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), time.Date(8999, 6, 1, 0, 0, 0, 0, time.UTC)} {
			walk(t, b, at, 3)
		}
		if p := b.Current(Custom, time.Date(2000, 1, 1, 3, 0, 0, 0, time.UTC)); p.Prev().InRange() && p.Prev().Start.Year() < 2000 {
			t.Errorf("%s: a period of 1999 is in range", spec)
		}
	}
}

// TestScheduleKeys: keys are the start in UTC to the minute; a key off the
// schedule (one kept under an earlier schedule) still reads, ending at the
// schedule's next boundary; anything else is refused.
func TestScheduleKeys(t *testing.T) {
	b := scheduled(t, "0 18 * * FRI", "Europe/Paris")
	off, err := b.PeriodOf(Custom, "20261027T0900Z")
	if err != nil || !off.End.Equal(time.Date(2026, 10, 30, 17, 0, 0, 0, time.UTC)) {
		t.Fatalf("off-schedule key: %v %v", off, err)
	}
	for _, key := range []string{"", "2026-10-27", "20261027T0900", "20261027T0960Z", "20261027T090Z", "20261027t0900z", "19991231T2300Z", "99991231T2300Z", " 20261027T0900Z"} {
		if _, err := b.PeriodOf(Custom, key); err == nil {
			t.Errorf("key %q parsed", key)
		}
	}
	if _, err := ParsePeriod(Custom, "20261027T0900Z", time.UTC); err == nil {
		t.Error("a custom key parsed without its schedule")
	}
}

// TestScheduleValidation: every way to get a schedule wrong is named.
func TestScheduleValidation(t *testing.T) {
	for _, c := range []struct{ spec, name, want string }{
		{"", "", "is required for the custom period"},
		{"*/30 * * * *", "", "at least an hour"},
		{"0 0 30 2 *", "", "never fires"},
		{"0 18 * * FRIDAY", "", "not a cron expression"},
		{"CRON_TZ=Asia/Tokyo 0 18 * * FRI", "", "board's time zone"},
		{"@every 1h", "", "board's time zone"},
		{"every 30m from 2026-12-01T00:00", "", "too short"},
		{"every 72 hours from 2026-12-01T00:00", "", "not an interval"},
		{"every 72h from 2026-13-01T00:00", "", "not a date and time"},
		{"every 72h from 1999-12-01T00:00", "", "years 2000-9000"},
		{"every 999999w from 2026-12-01T00:00", "", "longer than ten years"},
		{strings.Repeat("1", 101), "", "longer than 100"},
		{"0 18 * * FRI", "Round\u202e", "bidi"},
		{"0 18 * * FRI", strings.Repeat("x", 25), "at most 24"},
	} {
		b := &Board{ID: "s", Title: "S", Periods: []Kind{Custom}, TimeZone: "Europe/Paris", Schedule: c.spec, ScheduleName: c.name}
		b.Normalize()
		err := b.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %q: %v, want %q", c.spec, c.name, err, c.want)
		}
	}
	b := &Board{ID: "s", Title: "S", Periods: []Kind{Weekly}, Schedule: "0 18 * * FRI"}
	b.Normalize()
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), `add "custom" to the periods`) {
		t.Errorf("a schedule without the custom period: %v", err)
	}
	b = &Board{ID: "s", Title: "S", Periods: []Kind{Weekly}, ScheduleName: "Sprint"}
	b.Normalize()
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "set schedule too") {
		t.Errorf("a name without a schedule: %v", err)
	}
	b = scheduled(t, "0 9 * * MON", "UTC")
	b.ScheduleName = "Sprint"
	if err := b.Validate(); err != nil || b.Current(Custom, time.Now()).Title()[:9] != "Sprint of" {
		t.Errorf("a named schedule: %v %q", err, b.Current(Custom, time.Now()).Title())
	}
}

// BenchmarkValidateHourlyCron: definitions are validated on every load;
// an hourly cron's check reads the fires around its zone's clock changes.
func BenchmarkValidateHourlyCron(b *testing.B) {
	for b.Loop() {
		if _, err := ParseSchedule("0 * * * *", "", time.UTC); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzSchedule: whatever a schedule is, if it parses, its periods follow
// one another without gap or overlap, each at least MinSchedulePeriod long
// (or, on calendar days, a day less a DST hour), and every key reads back.
func FuzzSchedule(f *testing.F) {
	for _, s := range []string{"0 18 * * FRI", "@monthly", "30 2 * * *", "0 0 29 2 *", "0 */2 * * MON-FRI", "every 72h from 2026-12-01T00:00", "every 3d from 2026-03-29T02:30", "every 61m from 9000-12-31T23:59"} {
		f.Add(s, int64(1795000000), "Europe/Paris")
	}
	f.Fuzz(func(t *testing.T, spec string, at int64, tz string) {
		loc, err := time.LoadLocation(tz)
		if err != nil || tz == "Local" {
			return
		}
		s, err := ParseSchedule(spec, "", loc)
		if err != nil {
			return
		}
		now := time.Unix(946684800+(at%(220_000_000_000)+220_000_000_000)%220_000_000_000, 0) // 2000-8970
		p := s.PeriodAt(now)
		for range 4 {
			if p.Start.After(now) && now.Year() > 2000 || !p.End.After(p.Start) {
				t.Fatalf("%q at %s: %s to %s", spec, now, p.Start, p.End)
			}
			if q, err := s.parseKey(p.Key); err == nil && (!q.Start.Equal(p.Start) || !q.End.Equal(p.End)) {
				t.Fatalf("%q: key %s reads as %s to %s, not %s to %s", spec, p.Key, q.Start, q.End, p.Start, p.End)
			}
			next := p.Next()
			if !next.Start.Equal(p.End) {
				t.Fatalf("%q: %s ends at %s, the next starts at %s", spec, p.Key, p.End, next.Start)
			}
			p, now = next, next.Start
		}
	})
}

// TestNoLeagueOnASchedule: leagues run on calendar periods only.
func TestNoLeagueOnASchedule(t *testing.T) {
	b := &Board{ID: "s", Title: "S", Periods: []Kind{Custom}, Schedule: "0 18 * * FRI",
		League: &League{Kind: Custom, Tiers: []string{"Bronze", "Gold"}, Promote: 1, Relegate: 1}}
	b.Normalize()
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "must be a calendar period") {
		t.Fatalf("a league on custom periods: %v", err)
	}
}
