package board

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func mustLoc(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return loc
}

// TestISOWeekYearBoundaries checks every day around each new year from 2014/15
// to 2035/36 against GNU date's ISO week-year (testdata/isoweeks.txt).
func TestISOWeekYearBoundaries(t *testing.T) {
	f, err := os.Open("testdata/isoweeks.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		date, want, _ := strings.Cut(line, " ")
		for _, zone := range []string{"UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago"} {
			loc := mustLoc(t, zone)
			d, err := time.ParseInLocation("2006-01-02", date, loc)
			if err != nil {
				t.Fatal(err)
			}
			for _, at := range []time.Time{d, d.Add(23*time.Hour + 59*time.Minute)} {
				p := PeriodAt(Weekly, at, loc)
				if p.Key != want {
					t.Errorf("%s %s in %s: week %s, want %s", date, at.Format("15:04"), zone, p.Key, want)
				}
				if !p.Contains(at) {
					t.Errorf("%s: week %s [%s, %s) does not contain it", date, p.Key, p.Start, p.End)
				}
			}
		}
		n++
	}
	if n < 400 {
		t.Fatalf("read only %d dates", n)
	}
}

func TestPeriodKnownDates(t *testing.T) {
	utc := time.UTC
	tests := []struct {
		name string
		kind Kind
		at   string
		key  string
		prev string
		next string
	}{
		{"2020-12-31 is in 2020-W53", Weekly, "2020-12-31T12:00:00Z", "2020-W53", "2020-W52", "2021-W01"},
		{"2021-01-03 is in 2020-W53", Weekly, "2021-01-03T23:59:59Z", "2020-W53", "2020-W52", "2021-W01"},
		{"2024-12-30 is in 2025-W01", Weekly, "2024-12-30T00:00:00Z", "2025-W01", "2024-W52", "2025-W02"},
		{"the week before 2027-W01 is 2026-W53", Weekly, "2027-01-04T00:00:00Z", "2027-W01", "2026-W53", "2027-W02"},
		{"week 47 of 2026", Weekly, "2026-11-22T10:00:00Z", "2026-W47", "2026-W46", "2026-W48"},
		{"leap day", Daily, "2024-02-29T08:00:00Z", "2024-02-29", "2024-02-28", "2024-03-01"},
		{"new year's eve", Daily, "2026-12-31T23:59:59Z", "2026-12-31", "2026-12-30", "2027-01-01"},
		{"december", Monthly, "2026-12-15T00:00:00Z", "2026-12", "2026-11", "2027-01"},
		{"january", Monthly, "2027-01-01T00:00:00Z", "2027-01", "2026-12", "2027-02"},
		{"year", Yearly, "2026-06-01T00:00:00Z", "2026", "2025", "2027"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			at, _ := time.Parse(time.RFC3339, tc.at)
			p := PeriodAt(tc.kind, at, utc)
			if p.Key != tc.key || p.Prev().Key != tc.prev || p.Next().Key != tc.next {
				t.Fatalf("got %s (prev %s, next %s), want %s (prev %s, next %s)", p.Key, p.Prev().Key, p.Next().Key, tc.key, tc.prev, tc.next)
			}
			parsed, err := ParsePeriod(tc.kind, tc.key, utc)
			if err != nil || !parsed.Start.Equal(p.Start) || !parsed.End.Equal(p.End) {
				t.Fatalf("parse %s: %+v, %v; want %+v", tc.key, parsed, err, p)
			}
		})
	}
}

// TestPeriodChains walks every kind from 2015 to 2035 by Next and checks that
// periods tile time: contiguous, canonical, and Prev undoes Next.
func TestPeriodChains(t *testing.T) {
	for _, zone := range []string{"UTC", "Europe/Paris", "America/Sao_Paulo", "Australia/Lord_Howe", "Asia/Tehran"} {
		loc := mustLoc(t, zone)
		for _, k := range []Kind{Daily, Weekly, Monthly, Yearly} {
			p := PeriodAt(k, time.Date(2015, 1, 1, 12, 0, 0, 0, loc), loc)
			weeks := 0
			for p.Start.Year() < 2036 {
				n := p.Next()
				if !n.Start.Equal(p.End) {
					t.Fatalf("%s %s: %s ends %s but %s starts %s", zone, k, p.Key, p.End, n.Key, n.Start)
				}
				if back := n.Prev(); back.Key != p.Key || !back.Start.Equal(p.Start) {
					t.Fatalf("%s %s: Prev(Next(%s)) = %s", zone, k, p.Key, back.Key)
				}
				if n.Key <= p.Key {
					t.Fatalf("%s %s: keys not increasing: %s then %s", zone, k, p.Key, n.Key)
				}
				if h := p.End.Sub(p.Start).Hours(); k == Daily && (h < 22 || h > 26) {
					t.Fatalf("%s: day %s lasts %vh", zone, p.Key, h)
				}
				if k == Weekly {
					if p.Start.In(loc).Weekday() != time.Monday && p.Start.Add(time.Hour).In(loc).Weekday() != time.Monday {
						t.Fatalf("%s: week %s starts on %s", zone, p.Key, p.Start.In(loc).Weekday())
					}
					weeks++
					if strings.HasSuffix(n.Key, "-W01") {
						want := weeksIn(p.Start.AddDate(0, 0, 3).Year())
						if got := p.Key[len(p.Key)-2:]; got != map[int]string{52: "52", 53: "53"}[want] {
							t.Fatalf("%s: year ends with week %s, want %d weeks", zone, p.Key, want)
						}
					}
				}
				q, err := ParsePeriod(k, p.Key, loc)
				if err != nil || !q.Start.Equal(p.Start) || !q.End.Equal(p.End) {
					t.Fatalf("%s: ParsePeriod(%s) = %+v, %v", zone, p.Key, q, err)
				}
				p = n
			}
			if k == Weekly && (weeks < 52*21 || weeks > 53*21+1) {
				t.Fatalf("%s: walked %d weeks", zone, weeks)
			}
		}
	}
	long := map[int]bool{2015: true, 2020: true, 2026: true, 2032: true}
	for y := 2015; y <= 2035; y++ {
		if got, want := weeksIn(y) == 53, long[y]; got != want {
			t.Errorf("weeksIn(%d) = %d", y, weeksIn(y))
		}
	}
}

func TestPeriodDST(t *testing.T) {
	paris := mustLoc(t, "Europe/Paris")
	tests := []struct {
		name  string
		kind  Kind
		at    time.Time
		key   string
		hours float64
	}{
		{"spring forward day", Daily, time.Date(2026, 3, 29, 12, 0, 0, 0, paris), "2026-03-29", 23},
		{"fall back day", Daily, time.Date(2026, 10, 25, 12, 0, 0, 0, paris), "2026-10-25", 25},
		{"week with spring forward", Weekly, time.Date(2026, 3, 26, 0, 0, 0, 0, paris), "2026-W13", 7*24 - 1},
		{"march", Monthly, time.Date(2026, 3, 10, 0, 0, 0, 0, paris), "2026-03", 31*24 - 1},
		{"first instant of a day in zone", Daily, time.Date(2026, 11, 22, 23, 30, 0, 0, time.UTC), "2026-11-23", 24},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := PeriodAt(tc.kind, tc.at, paris)
			if p.Key != tc.key || p.End.Sub(p.Start).Hours() != tc.hours {
				t.Fatalf("got %s lasting %vh, want %s lasting %vh", p.Key, p.End.Sub(p.Start).Hours(), tc.key, tc.hours)
			}
		})
	}
	// Tokyo is ahead of UTC: its day turns while UTC's has not.
	at := time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC)
	if got := PeriodAt(Daily, at, mustLoc(t, "Asia/Tokyo")).Key; got != "2026-11-23" {
		t.Fatalf("Tokyo day at %s = %s", at, got)
	}
}

func TestParsePeriodRefusesBadKeys(t *testing.T) {
	tests := []struct {
		kind Kind
		key  string
	}{
		{Weekly, "2026-W54"}, {Weekly, "2025-W53"}, {Weekly, "2026-W00"}, {Weekly, "2026-W7"},
		{Weekly, "2026W47"}, {Weekly, "2026-w47"}, {Weekly, "+026-W47"}, {Weekly, "2026-W47 "},
		{Daily, "2026-02-29"}, {Daily, "2026-13-01"}, {Daily, "2026-1-01"}, {Daily, "2026-11-31"},
		{Daily, "0000-01-01"}, {Daily, "9999-12-31"}, {Daily, "2026/11/22"}, {Monthly, "2026-00"}, {Monthly, "2026-1"},
		{Yearly, "26"}, {Yearly, "-2026"}, {Yearly, "0000"}, {AllTime, "2026"}, {Kind("hour"), "x"},
	}
	for _, tc := range tests {
		if p, err := ParsePeriod(tc.kind, tc.key, time.UTC); err == nil {
			t.Errorf("ParsePeriod(%s, %q) = %+v, want an error", tc.kind, tc.key, p)
		}
	}
	if _, err := ParseKind("fortnight"); err == nil {
		t.Error("ParseKind(fortnight) accepted")
	}
}

// TestParsePeriodYearRange: a period is served only if it starts and ends in
// years 0001-9999 in the board's zone, since its end must encode as RFC 3339
// JSON; the error says why, and Prev/Next of the edge periods are out of range.
func TestParsePeriodYearRange(t *testing.T) {
	tests := []struct {
		kind Kind
		key  string
		ok   bool
	}{
		{Daily, "9999-12-30", true}, {Daily, "9999-12-31", false}, {Daily, "0001-01-01", true}, {Daily, "0000-12-31", false},
		{Weekly, "9999-W51", true}, {Weekly, "9999-W52", false}, {Weekly, "0001-W01", true}, {Weekly, "0000-W52", false},
		{Monthly, "9999-11", true}, {Monthly, "9999-12", false}, {Monthly, "0001-01", true}, {Monthly, "0000-12", false},
		{Yearly, "9998", true}, {Yearly, "9999", false}, {Yearly, "0001", true}, {Yearly, "0000", false},
	}
	for _, zone := range []string{"UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago"} {
		loc := mustLoc(t, zone)
		for _, tc := range tests {
			t.Run(zone+"/"+tc.key, func(t *testing.T) {
				p, err := ParsePeriod(tc.kind, tc.key, loc)
				if !tc.ok {
					if !errors.Is(err, ErrInvalidPeriod) || !strings.Contains(err.Error(), "within years 0001-9999") {
						t.Fatalf("ParsePeriod(%s, %s) = %v, want an out-of-range error", tc.kind, tc.key, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if _, err := json.Marshal(map[string]time.Time{"start": p.Start, "end": p.End}); err != nil {
					t.Fatalf("%s does not encode: %v", p, err)
				}
			})
		}
	}
	last, _ := ParsePeriod(Daily, "9999-12-30", time.UTC)
	first, _ := ParsePeriod(Daily, "0001-01-01", time.UTC)
	if !last.InRange() || last.Next().InRange() || first.Prev().InRange() || !(Period{Kind: AllTime}).InRange() {
		t.Fatalf("InRange at the edges: %v %v %v", last.InRange(), last.Next().InRange(), first.Prev().InRange())
	}
}

func FuzzParsePeriod(f *testing.F) {
	for _, s := range []string{"2026-W47", "2026-11-22", "2026-11", "2026", "", "all", "2020-W53", "9999-12-31"} {
		for _, k := range Kinds {
			f.Add(string(k), s)
		}
	}
	f.Fuzz(func(t *testing.T, kind, key string) {
		k, err := ParseKind(kind)
		if err != nil {
			return
		}
		p, err := ParsePeriod(k, key, time.UTC)
		if err != nil {
			return
		}
		if !k.Calendar() {
			return
		}
		if p.Key != key {
			t.Fatalf("ParsePeriod(%s, %q) is not canonical: %q", k, key, p.Key)
		}
		if _, err := json.Marshal([]time.Time{p.Start, p.End}); err != nil {
			t.Fatalf("%s: accepted but does not encode as JSON: %v", key, err)
		}
		if !p.Start.Before(p.End) {
			t.Fatalf("%s: start %s not before end %s", key, p.Start, p.End)
		}
		if q := PeriodAt(k, p.Start, time.UTC); q.Key != key {
			t.Fatalf("%s: the period at its start is %s", key, q.Key)
		}
		if q := PeriodAt(k, p.End.Add(-time.Nanosecond), time.UTC); q.Key != key {
			t.Fatalf("%s: the period at its last instant is %s", key, q.Key)
		}
	})
}
