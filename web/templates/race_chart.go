package templates

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RaceView is a period's race page: its top's scores over time as a chart
// drawn here (no script needed), the top's standings (live), and every
// point as a table, the chart's text alternative.
type RaceView struct {
	Title       string
	BoardHref   string
	PeriodTitle string
	Tabs        []Link
	Prev, Next  *Link
	Live        LiveInfo
	Table       Table     // the top as the reader sees it, the live view
	Chart       RaceChart // re-drawn from ChartSrc when a live frame arrives
	ChartSrc    string
	Top         int // how many members the race follows
}

// RaceLine is one member's line on the chart, as the reader sees it.
type RaceLine struct {
	Name   string
	Href   string // "" where the reader may not open the member's page
	Rank   int
	Score  string // the score now, as shown
	Points []RacePoint
}

// RacePoint is a score a member reached, and when.
type RacePoint struct {
	At    time.Time
	Value float64 // the score in the board's units, for the chart's scale
	Score string  // as shown
}

// RaceChart is the chart's drawing: each line's path in the SVG's own
// coordinates (raceW by raceH), the axes' labels, and the table beside it.
type RaceChart struct {
	Label  string // the chart's accessible name
	Note   string // why it shows less than the period holds ("" nothing): a freeze
	Lines  []RaceLine
	Paths  []RacePath
	YTicks []RaceTick
	XTicks []RaceTick
	Rows   []RaceRow // every point, newest first: the table
}

// RacePath is one line drawn: its SVG path, its colour class and the dots
// on its points.
type RacePath struct {
	D     string
	Class string
	Dots  [][2]string // x, y of each point (none on a crowded line)
	Name  string
}

// RaceTick is a label on an axis, at a coordinate along it.
type RaceTick struct {
	At    string
	Label string
	Above string // where a value's label sits, just above its line
}

// RaceRow is one point in the table.
type RaceRow struct {
	At    time.Time
	When  string // in the board's zone
	Name  string
	Score string
}

// The chart's coordinates: the SVG scales to its box, these are its
// viewBox. The values' labels sit above their grid lines inside the plot
// (so a long score never runs off a phone's screen), the times below it.
const (
	raceW, raceH                             = 600, 300
	raceLeft, raceRight, raceTop, raceBottom = 4, 4, 30, 36
	raceDotsMax                              = 60 // points a line may have and still show each as a dot
	raceColours                              = 10
)

// DrawRace lays out the chart of lines between from and to (to: now, the
// period's end or a freeze), better scores up: higher values on a board
// where higher is better, lower ones otherwise. format writes a value
// for the axis; loc is the board's zone for the times.
func DrawRace(label string, lines []RaceLine, from, to time.Time, higher bool, format func(float64) string, loc *time.Location) RaceChart {
	c := RaceChart{Label: label, Lines: lines}
	lo, hi, any := 0.0, 0.0, false
	for _, l := range lines {
		for _, p := range l.Points {
			if !any || p.Value < lo {
				lo = p.Value
			}
			if !any || p.Value > hi {
				hi = p.Value
			}
			any = true
			if p.At.Before(from) {
				from = p.At
			}
		}
	}
	if !any {
		return c
	}
	if !to.After(from) {
		to = from.Add(time.Minute)
	}
	if hi == lo {
		lo, hi = lo-1, hi+1
	}
	plotW, plotH := float64(raceW-raceLeft-raceRight), float64(raceH-raceTop-raceBottom)
	x := func(t time.Time) float64 {
		return raceLeft + plotW*float64(t.Sub(from))/float64(to.Sub(from))
	}
	y := func(v float64) float64 {
		f := (v - lo) / (hi - lo)
		if !higher {
			f = 1 - f
		}
		return raceTop + plotH*(1-f)
	}
	for i, l := range lines {
		if len(l.Points) == 0 {
			continue
		}
		var d strings.Builder
		p0 := l.Points[0]
		fmt.Fprintf(&d, "M%s %s", num(x(p0.At)), num(y(p0.Value)))
		path := RacePath{Class: "race-c" + strconv.Itoa(i%raceColours), Name: l.Name}
		for j, p := range l.Points {
			if j > 0 {
				fmt.Fprintf(&d, "H%sV%s", num(x(p.At)), num(y(p.Value)))
			}
			if len(l.Points) <= raceDotsMax {
				path.Dots = append(path.Dots, [2]string{num(x(p.At)), num(y(p.Value))})
			}
		}
		fmt.Fprintf(&d, "H%s", num(x(to)))
		path.D = d.String()
		c.Paths = append(c.Paths, path)
		for _, p := range l.Points {
			c.Rows = append(c.Rows, RaceRow{At: p.At, When: p.At.In(loc).Format("Jan 2 15:04:05"), Name: l.Name, Score: p.Score})
		}
	}
	// Newest first; points of one instant keep the lines' order.
	slices.SortStableFunc(c.Rows, func(a, b RaceRow) int { return b.At.Compare(a.At) })
	for _, v := range []float64{hi, (lo + hi) / 2, lo} {
		c.YTicks = append(c.YTicks, RaceTick{At: num(y(v)), Label: format(v), Above: num(y(v) - 5)})
	}
	layout := "15:04"
	if to.Sub(from) > 36*time.Hour {
		layout = "Jan 2"
	}
	c.XTicks = []RaceTick{{At: num(x(from)), Label: from.In(loc).Format(layout)}, {At: num(x(to)), Label: to.In(loc).Format(layout)}}
	return c
}

// num writes a coordinate with one decimal, enough for a chart of 600 units.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
