package templates

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// DrawRace: each line steps from point to point and runs on to the end,
// better scores are up whatever the board's order, the value labels span
// the scores, and the table lists every point newest first.
func TestDrawRace(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	pt := func(h int, v float64) RacePoint {
		return RacePoint{At: t0.Add(time.Duration(h) * time.Hour), Value: v, Score: strconv.FormatFloat(v, 'f', -1, 64)}
	}
	lines := []RaceLine{
		{Name: "ann", Points: []RacePoint{pt(1, 10), pt(5, 30)}},
		{Name: "bob", Points: []RacePoint{pt(2, 20)}},
		{Name: "cat"}, // in the top without a point of its own: no line
	}
	format := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, higher := range []bool{true, false} {
		c := DrawRace("race", lines, t0, t0.Add(10*time.Hour), higher, format, time.UTC)
		if len(c.Paths) != 2 || c.Paths[0].Class != "race-c0" || c.Paths[1].Class != "race-c1" {
			t.Fatalf("paths %+v", c.Paths)
		}
		// ann: from (1h, 10) across to 5h, up to 30, on to the end (10h).
		x := func(h float64) string { return num(raceLeft + float64(raceW-raceLeft-raceRight)*h/10) }
		top, bottom := num(raceTop), num(raceH-raceBottom)
		hi, lo := top, bottom // where 30 and 10 are drawn
		if !higher {
			hi, lo = bottom, top
		}
		if want := "M" + x(1) + " " + lo + "H" + x(5) + "V" + hi + "H" + x(10); c.Paths[0].D != want {
			t.Errorf("higher=%v: ann's path %s, want %s", higher, c.Paths[0].D, want)
		}
		var ticks []string
		for _, tk := range c.YTicks {
			ticks = append(ticks, tk.Label)
		}
		if got := strings.Join(ticks, " "); got != "30 20 10" {
			t.Errorf("value labels %q", got)
		}
		var rows []string
		for _, r := range c.Rows {
			rows = append(rows, r.Name+"="+r.Score)
		}
		if got := strings.Join(rows, " "); got != "ann=30 bob=20 ann=10" {
			t.Errorf("table %q", got)
		}
	}
	if c := DrawRace("race", []RaceLine{{Name: "cat"}}, t0, t0, true, format, time.UTC); len(c.Paths) != 0 || len(c.Rows) != 0 {
		t.Fatalf("a race without points: %+v", c)
	}
}
