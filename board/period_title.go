package board

import (
	"fmt"
	"time"
)

// Title names the period for people: "Sunday 22 November 2026",
// "Week 47, 16–22 Nov 2026", "November 2026", "2026", "All time", "Last 7 days".
func (p Period) Title() string {
	switch p.Kind {
	case Daily:
		return p.Start.Format("Monday 2 January 2006")
	case Weekly:
		return fmt.Sprintf("Week %s, %s", trimZero(p.Key[6:]), dateRange(p.Start, p.End.Add(-time.Hour)))
	case Monthly:
		return p.Start.Format("January 2006")
	case Yearly:
		return p.Key
	case Custom:
		return p.scheduleName() + " of " + instantRange(p.Start, p.End)
	case Last24h:
		return "Last 24 hours"
	case Last7d:
		return "Last 7 days"
	case Last30d:
		return "Last 30 days"
	}
	return "All time"
}

// Short is a compact name for previous/next links: "2 Jan 2027", "Week 46, 2026".
func (p Period) Short() string {
	switch p.Kind {
	case Daily:
		return p.Start.Format("2 Jan 2006")
	case Weekly:
		return "Week " + trimZero(p.Key[6:]) + ", " + p.Key[:4]
	case Custom:
		return p.scheduleName() + " of " + p.Start.Format("2 Jan 2006 15:04")
	}
	return p.Title()
}

// ScheduleName is what a custom period is called ("Round"); "" for the
// others.
func (p Period) ScheduleName() string {
	if p.Kind != Custom {
		return ""
	}
	return p.scheduleName()
}

func (p Period) scheduleName() string {
	if p.sched == nil {
		return DefaultScheduleName
	}
	return p.sched.Name
}

// instantRange is a custom period's span, its end as the clock shows it
// at the end (15:04 on the same day, else with the date):
// "Fri 4 Dec 2026 18:00 – Fri 11 Dec 18:00".
func instantRange(a, b time.Time) string {
	switch {
	case a.Year() != b.Year():
		return a.Format("Mon 2 Jan 2006 15:04") + " – " + b.Format("Mon 2 Jan 2006 15:04")
	case a.YearDay() == b.YearDay():
		return a.Format("Mon 2 Jan 2006 15:04") + "–" + b.Format("15:04")
	}
	return a.Format("Mon 2 Jan 2006 15:04") + " – " + b.Format("Mon 2 Jan 15:04")
}

func trimZero(s string) string {
	if len(s) > 1 && s[0] == '0' {
		return s[1:]
	}
	return s
}

func dateRange(a, b time.Time) string {
	switch {
	case a.Year() != b.Year():
		return a.Format("2 Jan 2006") + " – " + b.Format("2 Jan 2006")
	case a.Month() != b.Month():
		return a.Format("2 Jan") + " – " + b.Format("2 Jan 2006")
	}
	return fmt.Sprintf("%d–%s", a.Day(), b.Format("2 Jan 2006"))
}
