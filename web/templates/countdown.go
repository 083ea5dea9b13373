package templates

import (
	"fmt"
	"strconv"
	"time"
)

// Countdown is a contest's clock on a board's page, widget and wall
// display: to the opening, then to the close, then when it closed; and on
// a frozen board with a reveal at a set time, to the reveal. The page
// shows it right as served; countdown.js ticks it down from the server's
// clock (Now) and switches phase at each bound by itself, since it knows
// them all. The reveal line goes when the live frames lift the freeze, not
// when the script's clock says so: the standings and the words change
// together.
type Countdown struct {
	Now                   time.Time // the server's clock as the page was made
	Opens, Closes         time.Time // the window's bounds; zero: none
	OpensText, ClosesText string    // each in the board's zone, "8 Jan 2027, 15:00 CET"
	Reveal                time.Time // a freeze's reveal at a set time; zero: none
	RevealText            string
	Frozen                bool // the board is frozen as the page is made
}

// Countdown phases, as data-phase says them.
const (
	phaseOpens  = "opens"  // before the opening
	phaseCloses = "closes" // open, with a close to come
	phaseClosed = "closed" // after the close
	phaseOpen   = ""       // open with no close: nothing to count
)

// Phase is where the contest stands at now.
func (c *Countdown) Phase(now time.Time) string {
	switch {
	case !c.Opens.IsZero() && now.Before(c.Opens):
		return phaseOpens
	case !c.Closes.IsZero() && !now.Before(c.Closes):
		return phaseClosed
	case !c.Closes.IsZero():
		return phaseCloses
	}
	return phaseOpen
}

// Main is the countdown's line at now: "Opens in 2 d 3 h", "Closes in
// 12 min 5 s", "Closed at", with the instant it names (countdown.js words
// it the same way).
func (c *Countdown) Main(now time.Time) (words string, at time.Time, atText string) {
	switch c.Phase(now) {
	case phaseOpens:
		return "Opens in " + Remaining(c.Opens.Sub(now)), c.Opens, c.OpensText
	case phaseCloses:
		return "Closes in " + Remaining(c.Closes.Sub(now)), c.Closes, c.ClosesText
	case phaseClosed:
		return "Closed at", c.Closes, c.ClosesText
	}
	return "", time.Time{}, ""
}

// RevealWords is the reveal's line at now: "Results revealed in 45 min",
// or, once its time has come and until the freeze lifts, that it is under
// way.
func (c *Countdown) RevealWords(now time.Time) string {
	if now.Before(c.Reveal) {
		return "Results revealed in " + Remaining(c.Reveal.Sub(now))
	}
	return "Revealing the results…"
}

// Counts reports whether the board has anything to count: a bound or a
// reveal. Only then does the page carry the server's clock (data-now), so
// that a page with no contest is the same whenever it is made; a window
// that live frames bring later is counted by the browser's clock.
func (c *Countdown) Counts() bool {
	return !c.Opens.IsZero() || !c.Closes.IsZero() || !c.Reveal.IsZero()
}

// ShowsReveal reports whether the reveal's line shows as served.
func (c *Countdown) ShowsReveal() bool { return c.Frozen && !c.Reveal.IsZero() }

// Remaining is a time left in the two largest units that matter, whole
// seconds rounded up so that "0 s" never shows before the bound: "2 d 3 h",
// "1 h 12 min", "12 min 5 s", "42 s". countdown.js has its twin.
func Remaining(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	days, hours, mins, secs := s/86400, s%86400/3600, s%3600/60, s%60
	pair := func(a int64, au string, b int64, bu string) string {
		if b == 0 {
			return fmt.Sprintf("%d %s", a, au)
		}
		return fmt.Sprintf("%d %s %d %s", a, au, b, bu)
	}
	switch {
	case days > 0:
		return pair(days, "d", hours, "h")
	case hours > 0:
		return pair(hours, "h", mins, "min")
	case mins > 0:
		return pair(mins, "min", secs, "s")
	}
	return strconv.FormatInt(secs, 10) + " s"
}

// millis is an instant as data-* attributes carry it ("" none).
func millis(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
}

// isoTime is an instant as a <time datetime> says it.
func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// isoTimeOrNone is isoTime, "" for no instant.
func isoTimeOrNone(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return isoTime(t)
}
