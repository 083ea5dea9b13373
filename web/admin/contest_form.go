package admin

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"podium/board"
)

// The board form's contest window: two datetime-local fields read in the
// time zone the form names (the board's, as it is saved), since that is the
// clock the people running a contest think in; the form says which zone.
// An empty field is no bound.

// contestLayouts are the shapes of a datetime-local value: minutes, or
// seconds where the browser sends them.
var contestLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05"}

// contestFieldLayout is how a bound is shown back in its field.
func contestFieldLayout(t time.Time) string {
	if t.Second() != 0 {
		return contestLayouts[1]
	}
	return contestLayouts[0]
}

// parseContest reads the contest window's fields into b, in the zone
// named by the form's time_zone (UTC where that is not a zone: Validate
// says so beside it). A value with its own offset (2027-01-06T18:00Z, from
// a script) keeps it.
func parseContest(v url.Values, b *board.Board, errs formErrors) {
	loc, err := time.LoadLocation(strings.TrimSpace(v.Get("time_zone")))
	if err != nil || strings.TrimSpace(v.Get("time_zone")) == "" {
		loc = time.UTC
	}
	for _, f := range []struct {
		name string
		into *time.Time
	}{{"opens_at", &b.OpensAt}, {"closes_at", &b.ClosesAt}} {
		at, msg := parseContestTime(strings.TrimSpace(v.Get(f.name)), loc)
		if msg != "" {
			errs[f.name] = msg
			continue
		}
		*f.into = at
	}
	if _, bad := errs["opens_at"]; !bad && !b.OpensAt.IsZero() && !b.ClosesAt.IsZero() && !b.ClosesAt.After(b.OpensAt) {
		errs["closes_at"] = "must come after the opening"
	}
}

// parseContestTime reads one bound ("" is none); the message says what is
// wrong with it.
func parseContestTime(s string, loc *time.Location) (time.Time, string) {
	if s == "" {
		return time.Time{}, ""
	}
	if len(s) > 40 {
		return time.Time{}, "must be a date and time such as 2027-01-06T18:00"
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC().Truncate(time.Microsecond), ""
	}
	for _, layout := range contestLayouts {
		t, err := time.ParseInLocation(layout, s, loc)
		if err != nil {
			continue
		}
		if t.Format(layout) != s {
			// Go moves a wall-clock time the clocks skip (a spring
			// forward) past the gap: say so rather than save another time.
			return time.Time{}, fmt.Sprintf("%s does not exist in %s: the clocks skip it", strings.Replace(s, "T", " ", 1), loc)
		}
		// A wall-clock time the clocks go back over happens twice; Go
		// may give either. The first is what a person means by it.
		for _, d := range []time.Duration{2 * time.Hour, time.Hour, 30 * time.Minute} {
			if earlier := t.Add(-d); earlier.Format(layout) == s {
				t = earlier
				break
			}
		}
		return t.UTC(), ""
	}
	return time.Time{}, "must be a date and time such as 2027-01-06T18:00"
}

// contestFields are a board's bounds as its form shows them, in its zone
// ("" none).
func contestFields(b *board.Board) (opens, closes string) {
	show := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		t = t.In(b.Location())
		return t.Format(contestFieldLayout(t))
	}
	return show(b.OpensAt), show(b.ClosesAt)
}

// keepShownBounds keeps old's contest bounds where the form sent their
// fields as contestFields showed them, in the same zone: a field cannot show
// every instant (a fraction of a second set through the API; the second of
// two times the clocks go back over, which reads as the first), and saving
// the form for another change must not move the contest.
func keepShownBounds(v url.Values, b, old *board.Board) {
	if b.TimeZone != old.TimeZone {
		return
	}
	opens, closes := contestFields(old)
	if strings.TrimSpace(v.Get("opens_at")) == opens {
		b.OpensAt = old.OpensAt
	}
	if strings.TrimSpace(v.Get("closes_at")) == closes {
		b.ClosesAt = old.ClosesAt
	}
}
