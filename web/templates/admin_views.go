package templates

import (
	"strings"
	"time"

	"podium/access"
)

// AdminNav is what every admin page shows: who is signed in, the CSRF token
// its forms carry, the active section, and a message from the last change.
type AdminNav struct {
	User, CSRF, Active, Flash string
	Site                      bool // a site admin: users and API keys in the navigation
}

// LoginView is the sign-in form.
type LoginView struct {
	User, Next, CSRF, Error, Flash string
	OrgSignIn                      string // the organisation's sign-in, when on
}

// AdminBoardsView lists boards to manage.
type AdminBoardsView struct {
	Nav    AdminNav
	Boards []AdminBoardRow
}

// AdminBoardRow is one board in the list.
type AdminBoardRow struct {
	ID, Title, Meta, Periods, Public string
	Role                             string // the signed-in board user's role on it; "" for a site admin
	CanOwn                           bool   // edit and delete
}

// FieldRow is one extra sort field in the board form.
type FieldRow struct {
	Name string
	Desc bool
}

// BoardFormView is the create/edit board form, with values kept and errors
// keyed by field.
type BoardFormView struct {
	Nav                                                               AdminNav
	Editing                                                           bool
	ID, Title, Format, Decimals, Prefix, Suffix, Order, DefaultPeriod string
	TimeZone, TieBreak, RankStyle, Cap, Retention, Window, Teams      string
	Visibility, Names, TopOnly                                        string
	Segments                                                          string // "country, class"
	Schedule, ScheduleName                                            string // the custom period's
	LeagueKind, LeagueTiers, LeagueCohort, LeaguePromote              string // no kind: no league; tiers one per line
	LeagueRelegate                                                    string
	LeagueIdleDrops                                                   bool
	OpensAt, ClosesAt                                                 string            // a contest's window in the board's zone, as datetime-local values; "" no bound
	Rules                                                             map[string]string // fair play: rule name (and "on_break") -> as typed
	RulesUnit                                                         string            // what one unit of the board is, for the rules' help
	Periods                                                           map[string]bool
	Fields                                                            [3]FieldRow
	Errors                                                            map[string]string
}

// ConfirmView asks to type a word before a destructive action.
type ConfirmView struct {
	Nav                                                        AdminNav
	Title, Action, Message, Expect, Back, Button, Error, Typed string
}

// ManageView is a board's admin page.
type ManageView struct {
	Nav                                   AdminNav
	Role                                  string // a board user's role on the board; "" for a site admin
	CanScore, CanOwn                      bool   // the forms of a scorekeeper, the links of an owner
	People                                bool   // roles exist: the People page
	MemberData                            bool   // an owner may download a member's data and erase it
	Holds                                 bool   // the board's rules hold scores for review: the Held scores page
	ID, Title, Meta, Public, Member, Name string
	Teams                                 bool     // the board keeps team standings
	Team                                  string   // the looked-up member's team
	Segments                              []string // the board's attributes
	MemberSegments                        []string // the looked-up member's values: "country NO"
	Standing                              []MemberPeriod
	Periods, ResetPeriods                 []Link // Href holds the form value
	Form                                  string // the form the errors belong to
	Values, Errors                        map[string]string
	Freeze                                FreezeView
}

// FreezeView is the board page's "Freeze and reveal" panel.
type FreezeView struct {
	Since   string // frozen since (the board's zone); "" when not frozen
	At      string // a freeze still to come; ""
	Reveal  string // when the freeze lifts on its own (the board's zone); "" by hand only
	RevealV string // the reveal form's value (datetime-local)
	Zone    string // the board's time zone, which the form's time is in
	Default string // the form's suggested time (datetime-local)
	Period  string // the period the live standings show
	Table   Table  // the live standings (admins see them whatever the public sees)
	Live    LiveInfo
}

// AuditView is the audit log.
type AuditView struct {
	Nav                AdminNav
	Entries            []AuditRow
	Boards, Actors     []string
	Board, Actor, Next string
}

// AuditRow is one change; Changes say what it changed, a line each.
type AuditRow struct {
	When                                 time.Time
	Actor, Action, Board, Member, Reason string
	Changes                              []AuditChange
}

// AuditChange is one line of a change: what (a period, a setting), and its
// value before and after. A line with only After is a value set where
// nothing was (a board's settings at creation); with only Before, one taken
// away.
type AuditChange struct {
	What, Before, After string
}

// KeysView lists API keys, and shows a new key's secret once.
type KeysView struct {
	Nav                AdminNav
	Keys               []KeyRow
	Boards             []string
	Name, Board, Scope string
	NewSecret, NewName string
	Errors             map[string]string
}

// KeyRow is one API key.
type KeyRow struct {
	ID, Name, Board   string
	ReadOnly          bool
	Created, LastUsed time.Time
}

// UsersView lists the console's users.
type UsersView struct {
	Nav        AdminNav
	Users      []access.Account
	User, Kind string // the form's values
	Errors     map[string]string
	OrgSignIn  bool // users may sign in with the organisation, without a password
}

// PeopleView is a board's "People" page: who holds which role on it.
type PeopleView struct {
	Nav          AdminNav
	Board, Title string
	SiteAdmins   []string // may do everything on every board
	Holders      []Holder
	Others       []string // board users without a role here, for the form
	User, Role   string   // the form's values
	Errors       map[string]string
	Visibility   string
	// OrgSignIn: sign-in with the organisation is on; Domains and Groups
	// are the board's allow-list (or the form's values).
	OrgSignIn       bool
	Domains, Groups string
}

// Holder is a board user's role on a board.
type Holder struct{ User, Role string }

// SessionsView is the signed-in admin's own sessions; Current is the id of
// the one viewing the page.
type SessionsView struct {
	Nav      AdminNav
	Sessions []access.SessionInfo
	Current  string
}

// Browser names a user agent the way people say it: "Firefox on Windows".
// The full string stays in the cell's title.
func Browser(ua string) string {
	if ua == "" {
		return "—"
	}
	name := "A browser"
	for _, b := range []struct{ token, name string }{
		{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"}, {"HeadlessChrome/", "Headless Chrome"},
		{"Chrome/", "Chrome"}, {"Safari/", "Safari"}, {"curl/", "curl"}, {"Go-http-client/", "a Go program"},
	} {
		if strings.Contains(ua, b.token) {
			name = b.name
			break
		}
	}
	for _, os := range []struct{ token, name string }{
		{"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Android", "Android"}, {"Windows", "Windows"},
		{"Mac OS X", "macOS"}, {"CrOS", "ChromeOS"}, {"Linux", "Linux"},
	} {
		if strings.Contains(ua, os.token) {
			return name + " on " + os.name
		}
	}
	return name
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// errIn is the error of a field of the form that failed, or "".
func errIn(v ManageView, form, field string) string {
	if v.Form != form {
		return ""
	}
	return v.Errors[field]
}

func valIn(v ManageView, form, field string) string {
	if v.Form != form && field != "member" {
		return ""
	}
	return v.Values[field]
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2 Jan 2006 15:04 UTC")
}

func scopeOf(board string) string {
	if board == "" {
		return "All boards"
	}
	return board
}

// SharingView is a board's "Visibility and sharing" page.
type SharingView struct {
	Nav               AdminNav
	ID, Title, Public string
	Visibility        string // public, unlisted or private
	Links             []LinkRow
	Name, Expires     string // the form's values
	NewURL, NewName   string // a link just made: its URL, shown once
	EmbedOn           bool   // the board has an embed secret
	NewSecret         string // an embed secret just made, shown once
	EmbedPath, Site   string // /embed/<board>, and this site's scheme and host
	Errors            map[string]string
	Personal          PersonalForm
}

// PersonalForm is the personal links' part of the sharing page: the links
// made, and the form that makes more.
type PersonalForm struct {
	Links    []PersonalRow
	Members  int    // members with a score in a current period: "every member"
	For      string // "every" or "list"
	List     string // member ids, one a line
	Expires  string
	Renew    bool   // members who have a link get a new one, ending the old
	Sees     string // what a personal link shows of the others, as the privacy mode says
	MaxLinks int
	Errors   map[string]string // the form's, apart from the share link form's
}

// PersonalRow is one personal link.
type PersonalRow struct {
	ID, Name, Member, By       string
	Created, Expires, LastUsed time.Time
	Expired                    bool
}

// SheetView is the printable sheet of personal links just made: one card a
// member, shown only in the answer that made them.
type SheetView struct {
	ID, Title string
	Back      string // the sharing page
	Expires   time.Time
	Cards     []SheetCard
	Skipped   []string // members who had a link already, left as they were
}

// SheetCard is one member's card.
type SheetCard struct {
	Name, Member, URL string
}

// LinkRow is one share link.
type LinkRow struct {
	ID, Name, By               string
	Created, Expires, LastUsed time.Time
	Expired                    bool
}

// linkWhile says when a share link matters: only a private board needs one.
func linkWhile(visibility string) string {
	if visibility == "private" {
		return ""
	}
	return " (the board is " + visibility + " now, so nobody needs a link until it is private)"
}

// embedSnippet is the three lines a site's server runs to sign the
// widget's address of a board (see access.SignEmbed).
func embedSnippet(v SharingView) string {
	return `import hmac, hashlib, time
q = "period=week&limit=10&exp=%d" % (time.time() + 3600)
url = "` + v.Site + `" + "` + v.EmbedPath + `?" + q + "&sig=" + hmac.new(bytes.fromhex(SECRET), ("` + v.EmbedPath + `?" + q).encode(), hashlib.sha256).hexdigest()`
}

// joinNames lists names for a sentence: "a, b and c".
func joinNames(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// roleLine tells a board user what their role lets them do here.
func roleLine(role string) string {
	switch role {
	case "viewer":
		return "You are a viewer of this board: you may read it, not change it."
	case "scorekeeper":
		return "You are a scorekeeper of this board: scores, names, teams, resets, freeze and reveal. An owner changes its definition and who may read it."
	case "owner":
		return "You are an owner of this board."
	}
	return ""
}

func userHelp(org bool) string {
	if org {
		return "Lower-case letters, digits, '.', '_', '-', '+' or '@'. For someone who signs in with your organisation, their email address."
	}
	return "Lower-case letters, digits, '.', '_', '-', '+' or '@'."
}

func passwordHelp(org bool) string {
	if org {
		return "At least 10 characters; leave it empty for a user named by their email address who signs in only with your organisation."
	}
	return "At least 10 characters."
}
