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
	specs := []string{"0 * * * *", "30 * * * *", "0 */2 * * *", "30 1,2 * * *", "0 2,3 * * *", "15 0-3 * * SUN", "0 1 * * *",
		"*/30 * * * *", "0,59 * * * *", "0,30 5 * * *", "0 18 * * FRI", "@hourly", "0 0 29 2 *", "0 1,2 1-7 4,10 SUN"}
	zones := []string{"UTC", "Europe/Oslo", "America/New_York", "Australia/Lord_Howe", "Pacific/Chatham", "America/Santiago", "Asia/Tehran"}
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
