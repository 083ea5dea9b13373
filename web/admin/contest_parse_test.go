package admin

import (
	"testing"
	"time"
)

// TestParseContestTime: a bound is read in the form's zone; one with its
// own offset keeps it; a time the clocks skip is refused; one they go back
// over is its first occurrence, whichever Go's zone rules would give.
func TestParseContestTime(t *testing.T) {
	for _, c := range []struct{ zone, in, want, msg string }{
		{"Europe/Paris", "2027-01-08T15:00", "2027-01-08T14:00:00Z", ""},
		{"Europe/Paris", "2027-01-08T15:00:30", "2027-01-08T14:00:30Z", ""},
		{"Europe/Paris", "2027-01-08T15:00:00+09:00", "2027-01-08T06:00:00Z", ""},
		{"Europe/Paris", "2027-03-28T02:30", "", "2027-03-28 02:30 does not exist in Europe/Paris: the clocks skip it"},
		{"Europe/Paris", "2027-10-31T02:30", "2027-10-31T00:30:00Z", ""},
		{"America/New_York", "2027-11-07T01:30", "2027-11-07T05:30:00Z", ""},
		{"Australia/Lord_Howe", "2027-04-04T01:45", "2027-04-03T14:45:00Z", ""},
		{"UTC", "2027-01-08", "", "must be a date and time such as 2027-01-06T18:00"},
		{"UTC", "", "", ""},
	} {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		got, msg := parseContestTime(c.in, loc)
		if msg != c.msg || (c.want != "" && got.Format(time.RFC3339) != c.want) || (c.want == "" && !got.IsZero()) {
			t.Errorf("%s in %s: %v %q, want %s %q", c.in, c.zone, got, msg, c.want, c.msg)
		}
	}
}

// FuzzContestTime: reading a contest's bound never panics; what it accepts
// in the form's zone shows back in its field as typed and reads again as
// the same instant.
func FuzzContestTime(f *testing.F) {
	f.Add("2027-01-08T15:00", "Europe/Paris")
	f.Add("2027-10-31T02:30:59", "Europe/Paris")
	f.Add("2027-03-28T02:30", "Europe/Paris")
	f.Add("2027-01-08T15:00:00+09:00", "UTC")
	f.Add("9999-12-31T23:59", "Pacific/Kiritimati")
	f.Fuzz(func(t *testing.T, s, zone string) {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			return
		}
		got, msg := parseContestTime(s, loc)
		if msg != "" || got.IsZero() {
			return
		}
		if _, err := time.Parse(time.RFC3339, s); err == nil {
			return // its own offset: shown back in the zone, not as typed
		}
		shown := got.In(loc).Format(contestFieldLayout(got.In(loc)))
		if shown != s && shown != s+":00" && shown+":00" != s {
			t.Fatalf("%q in %s read as %v, shown back as %q", s, zone, got, shown)
		}
		if again, msg := parseContestTime(shown, loc); msg != "" || !again.Equal(got) {
			t.Fatalf("%q in %s read as %v, its field %q reads as %v %q", s, zone, got, shown, again, msg)
		}
	})
}
