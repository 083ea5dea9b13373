// Package templates renders the site's pages with templ. Handlers fill the
// view structs below; components only display them.
package templates

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"podium/board"
	"podium/rows"
)

// Link is a labelled URL; Current marks the page being shown.
type Link struct {
	Label   string
	Href    string
	Current bool
}

// Row is one line of a standings table.
type Row struct {
	Rank   int
	Tied   bool
	Member string
	Name   string
	Score  string
	Fields []string
	Href   string // member page
	Me     bool   // the member an around-me view or widget is about
	Gap    bool   // a "…" separator row instead of a member
}

// Table is a standings table: rows and the extra field headings.
type Table struct {
	Fields []string
	Rows   []Row
	Label  string // accessible caption
	NewTab bool   // member links open a new tab (inside the widget)
	Teams  bool   // the rows are teams
}

// Activity is one line of the recent-changes panel.
type Activity struct {
	Name  string
	Href  string
	Delta string // "+120", "set 9.58", "best 0:09.580"
	Up    bool
	Down  bool
	After string // score after
	Rank  string // rank after, "3rd"
	When  time.Time
	Ago   string
}

// Card is a board on the home page.
type Card struct {
	Title  string
	Href   string
	Period string
	Meta   string
	Rows   []Row
}

// BoardView is the board page.
type BoardView struct {
	Title       string
	ID          string
	Meta        string
	Tabs        []Link
	PeriodTitle string
	PeriodNote  string // what a rolling window covers: "Today and the 6 days before, …"
	TeamsHref   string // the period's team standing, on boards with teams
	RaceHref    string // the period's race (race.templ); "" for a rolling window
	LeagueHref  string // the league's tiers and cohorts, on boards with a league
	Prev, Next  *Link
	Table       Table
	Total       int
	Query       string
	Searching   bool
	Incomplete  bool // the search stopped early
	PageLabel   string
	PrevPage    string
	NextPage    string
	Recent      []Activity
	Snippet     string
	EmbedHref   string
	ExportCSV   string // downloads of the period shown; empty without an exporter
	ExportJSON  string
	WinnersHref string // past winners; empty without an archive
	Empty       string
	ClearSearch string
	Live        LiveInfo
	Noun        string // what the count counts, "member members" unless set
	NoSearch    bool   // the board hides names from this reader: no search by name
	NoRecent    bool   // the board's privacy mode hides who scored what, or a segment is shown
	Privacy     string // what the privacy mode hides from this reader, said once
	Mine        *Mine  // a personal link's own place
	// Segment is the picker of a board that declares segments (nil: none)
	// and the segment shown, if any.
	Segment *SegmentFilter
}

// countNoun is what a board page's count counts: members, or the places
// a privacy mode shows (Noun).
func countNoun(v BoardView) string {
	one, many, _ := strings.Cut(v.Noun, " ")
	if v.Noun == "" {
		one, many = "member", "members"
	}
	return plural(v.Total, one, many)
}

// Mine is a personal link's own place in a period.
type Mine struct {
	Name       string
	Ranked     bool
	Rank       string // "12th"
	Score      string
	Href       string // their page
	AroundHref string // around them; empty when unranked
}

// LiveInfo tells the browser script which view a page shows; an empty
// Query means the page is not live.
type LiveInfo struct {
	Query      string // the /live query: board=…&period=…
	MemberHref string // prefix of member links built by the script
	NewTab     bool   // links open outside the frame (the widget)
	Me         string // the member whose rank changes are announced
	Period     string // kind shown, for forms
	Key        string // period key when not the current one
	Closed     bool   // a past period: the script says "Closed", not "Live"
	// Frozen is the notice of a frozen board (rows.FrozenNotice); live
	// frames replace it, and an empty one hides it (the reveal).
	Frozen    string
	Countdown *Countdown // a contest's clock, where the page shows one (nil: none)
	// Path is the socket's path: "/live" (public) unless set, as the
	// console's live standings do.
	Path string
}

// AroundView is the around-me page.
type AroundView struct {
	BoardTitle  string
	BoardHref   string
	Name        string
	MemberHref  string
	Headline    string
	PeriodTitle string
	Tabs        []Link
	Table       Table
	Live        LiveInfo
	Uncounted   bool // the board shows only its top: the headline says no "of N"
}

// MemberPeriod is one period on a member's page.
type MemberPeriod struct {
	Label      string // "This week"
	Title      string // "Week 47, 16–22 Nov 2026", as the board names it; empty when Label says it all
	Key        string
	Ranked     bool
	Rank       string
	Score      string
	Of         string
	Percentile string
	AroundHref string
	Segments   []SegmentRankView // its rank within each of its segments
}

// MemberView is a member's page.
type MemberView struct {
	BoardTitle string
	BoardHref  string
	Name       string
	Member     string
	Periods    []MemberPeriod
	History    *RankChart // past periods from the archive; nil without
	Frozen     string     // the frozen notice (rows.FrozenNotice)
	Uncounted  bool       // the board shows only its top: no "of N", no percentiles
	// CompareHref opens the compare page with this member ("" where the
	// reader may not see other members).
	CompareHref string
	Segments    []Link        // the member's values, each to its segment's page
	League      *MemberLeague // the member's league this period; nil on a board without one
}

// ErrorView is a 404 or 500 page.
type ErrorView struct {
	Code    int
	Title   string
	Message string
	Links   []Link
}

// Ordinal writes 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st...
func Ordinal(n int) string { return rows.Ordinal(n) }

// Group writes an integer with thousands separators.
func Group(n int) string { return board.Format{Type: board.Integer}.Display(float64(n)) }

// Ago writes how long ago t was, coarsely: "just now", "5 min ago", "3 h ago".
func Ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 45*time.Second:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()+0.5))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()+0.5))
	}
	return t.Format("2 Jan 15:04")
}

func rankClass(rank int) string {
	if rank >= 1 && rank <= 3 {
		return "rank-badge r" + strconv.Itoa(rank)
	}
	return "rank-badge"
}

func rankLabel(r Row) string {
	if r.Tied {
		return "Rank " + strconv.Itoa(r.Rank) + ", tied"
	}
	return "Rank " + strconv.Itoa(r.Rank)
}

func itoa(n int) string { return strconv.Itoa(n) }

// WinnersView is a board's past winners: the top three of each closed
// period of one kind, as archived.
type WinnersView struct {
	Title     string
	BoardHref string
	Kind      string // "weeks", "days"...
	Tabs      []Link
	Cards     []Card
	Older     string // next page, when there is one
	Newer     string
	PageLabel string
}

// RankChart is a member's rank over past periods, drawn as an SVG line (best
// rank at the top) and told in full by the table beside it.
type RankChart struct {
	Title  string // "Past weeks"
	Line   string // SVG polyline points
	Dots   []ChartDot
	Top    string // the best rank on the axis, "1st"
	Bottom string // the worst, "24th"
	Rows   []ChartRow
}

// ChartDot is one period on the chart.
type ChartDot struct {
	X, Y  string
	Label string // "Week 46: 3rd of 24, 1,970 pts"
}

// ChartRow is one period in the chart's table.
type ChartRow struct {
	Period string
	Href   string
	Rank   string
	Of     string
	Score  string
}

// Chart geometry: a 600×160 drawing scaled to the card's width.
const (
	ChartW, ChartH = 600, 160
	chartPad       = 16
)

// PlotRanks places ranks (best first: 1 at the top) evenly across the chart,
// with worst the bottom of the axis.
func PlotRanks(ranks []int, worst int, labels []string) (line string, dots []ChartDot) {
	if worst < 1 {
		worst = 1
	}
	n := len(ranks)
	var pts []string
	for i, r := range ranks {
		x := float64(ChartW) / 2
		if n > 1 {
			x = chartPad + float64(i)*float64(ChartW-2*chartPad)/float64(n-1)
		}
		y := float64(chartPad)
		if worst > 1 {
			y = chartPad + float64(r-1)*float64(ChartH-2*chartPad)/float64(worst-1)
		}
		xs, ys := strconv.FormatFloat(x, 'f', 1, 64), strconv.FormatFloat(y, 'f', 1, 64)
		pts = append(pts, xs+","+ys)
		dots = append(dots, ChartDot{X: xs, Y: ys, Label: labels[i]})
	}
	return strings.Join(pts, " "), dots
}

// TVView is the wall display: screens shown one after another.
type TVView struct {
	Screens []TVScreen
	Every   int    // seconds each screen stays
	Rows    int    // rows a screen shows at most: the type is sized for them
	Theme   string // "", "light" or "dark"
}

// TVScreen is one board in one period on the wall display.
type TVScreen struct {
	Title       string
	PeriodTitle string
	Table       Table
	Empty       string
	Live        string     // the /live query; empty without a hub
	Frozen      string     // the frozen notice, as LiveInfo.Frozen
	Countdown   *Countdown // a contest's clock, as LiveInfo.Countdown
}

// TeamsView is a period's team standing.
type TeamsView struct {
	Title, ID, Meta, BoardHref string
	Tabs                       []Link
	PeriodTitle, PeriodNote    string
	Prev, Next                 *Link
	Table                      Table
	Total                      int
	By, Empty                  string
	PrevPage, NextPage         string
	PageLabel                  string
	Live                       LiveInfo
}

// TeamView is one team's members in a period.
type TeamView struct {
	BoardTitle, Team, TeamsHref, PeriodTitle string
	Tabs                                     []Link
	Table                                    Table
	Unranked                                 []Link // members with no score in the period
	Frozen                                   string // the freeze's notice, when the board is frozen
	Note                                     string // what an archived period's page shows
}

type noIndexKey struct{}

// WithNoIndex marks a request's context so that the page it renders asks
// search engines not to index it (a private or unlisted board's).
func WithNoIndex(ctx context.Context) context.Context {
	return context.WithValue(ctx, noIndexKey{}, true)
}

func noIndex(ctx context.Context) bool { v, _ := ctx.Value(noIndexKey{}).(bool); return v }

// SignIn is what the site header offers about sign-in with the
// organisation: nothing when it is off, a way in, or a way out.
type SignIn struct {
	On       bool
	SignedIn bool   // the browser holds a session cookie (it may have ended)
	Next     string // the page to come back to
}

type signInKey struct{}

// WithSignIn marks a request's context with what its page's header offers.
func WithSignIn(ctx context.Context, s SignIn) context.Context {
	return context.WithValue(ctx, signInKey{}, s)
}

func signInOf(ctx context.Context) SignIn { v, _ := ctx.Value(signInKey{}).(SignIn); return v }

func signInHref(s SignIn) string { return "/auth/login?next=" + url.QueryEscape(s.Next) }
