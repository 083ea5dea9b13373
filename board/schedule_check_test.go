package board

import (
	"testing"
	"time"

	"github.com/robfig/cron/v3"
)

// TestCronCheckWalksLittle: a cron schedule's check reads the fires near
// its zone's clock changes, not a year of them (an hourly schedule has
// 8,784: some 30 ms on every check, and definitions are checked on every
// load once more specs were seen than the check remembers), and it judges
// every schedule as the walk of the whole year does.
func TestCronCheckWalksLittle(t *testing.T) {
	s := cronSchedule(t, "0 * * * *", "Europe/Oslo")
	if walked, err := s.checkCron(); err != nil || walked > 500 {
		t.Fatalf("an hourly schedule: %d fires walked, %v", walked, err)
	}
	specs := []string{"0 * * * *", "0 */2 * * *", "30 1,2 * * *", "0 2,3 * * *", "15 0-3 * * SUN", "0 1 * * *",
		"*/30 * * * *", "0,59 * * * *", "0,30 5 * * *", "0 18 * * FRI", "0 0 29 2 *", "0 1,2 1-7 4,10 SUN"}
	zones := []string{"UTC", "Europe/Oslo", "Australia/Lord_Howe", "Pacific/Chatham", "America/Santiago"}
	for _, spec := range specs {
		for _, zone := range zones {
			s := cronSchedule(t, spec, zone)
			_, got := s.checkCron()
			want := s.checkCronYear()
			if (got == nil) != (want == nil) {
				t.Errorf("%q in %s: %v, the year's walk says %v", spec, zone, got, want)
			}
		}
	}
}

// cronSchedule parses spec in zone without checking it.
func cronSchedule(t *testing.T, spec, zone string) *Schedule {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cronParser.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	c.(*cron.SpecSchedule).Location = loc
	return &Schedule{spec: spec, cron: c, loc: loc}
}

// countingCron counts the fires a schedule is asked for.
type countingCron struct {
	cron.Schedule
	n int
}

func (c *countingCron) Next(t time.Time) time.Time {
	c.n++
	return c.Schedule.Next(t)
}

// TestCronFloorAsksLittle: the period a time falls in is found in a few
// dozen of the schedule's fires, however many fires precede a long gap
// (hourly January to June: every page, API call and live tick in the rest
// of the year walked thousands, some 6 ms), and it is the period the walk
// of every fire finds.
func TestCronFloorAsksLittle(t *testing.T) {
	s := cronSchedule(t, "0 * * 1-6 *", "UTC")
	c := &countingCron{Schedule: s.cron}
	s.cron = c
	if p := s.PeriodAt(time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)); !p.Start.Equal(time.Date(2026, 6, 30, 23, 0, 0, 0, time.UTC)) || c.n > 200 {
		t.Fatalf("the period of 31 December: %s, %d fires asked for", p.Start, c.n)
	}
	for _, spec := range []string{"0 */4 * 1 *", "30 1,2 * * *", "0 18 * * FRI", "0 0 29 2 *", "0 */2 * * MON-FRI", "15 3 1 * *", "0 0 1 1 *"} {
		for _, zone := range []string{"UTC", "Europe/Paris", "America/New_York", "Pacific/Chatham", "Australia/Lord_Howe"} {
			s := cronSchedule(t, spec, zone)
			if s.checkCronYear() != nil {
				continue
			}
			for at := time.Date(2026, 1, 1, 0, 7, 0, 0, time.UTC); at.Year() < 2027; at = at.Add(255*time.Hour + 13*time.Minute + 29*time.Second) {
				if got, want := s.cronFloor(at), walkFloor(s, at); !got.Equal(want) {
					t.Fatalf("%q in %s at %s: %s, the walk finds %s", spec, zone, at, got, want)
				}
			}
		}
	}
}

// walkFloor is the last fire at or before t by the walk of every fire.
func walkFloor(s *Schedule, t time.Time) time.Time {
	for back := 2 * MinSchedulePeriod; back < 20*366*24*time.Hour; back *= 2 {
		last := time.Time{}
		for f := s.cron.Next(t.Add(-back)); !f.IsZero() && !f.After(t); f = s.cron.Next(f) {
			last = f
		}
		if !last.IsZero() {
			return last
		}
	}
	return time.Time{}
}
