// Package hooks sends a board's events to HTTPS endpoints that admins
// register: a period closed (with its final top N), a new leader, members
// entering the top N, a league period's close (its promotions and
// relegations). Every replica runs a Runner; the events are found and
// queued inside Redis by one script per board (so two replicas cannot both
// announce a change), and each queued delivery is handed to one replica by
// a Redis consumer group, signed, and retried with backoff for a bounded time.
package hooks

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"podium/board"
)

// Event is what happened on a board; its name is the Podium-Event header.
type Event string

// Events a hook may ask for, and the test event the console sends.
const (
	NewLeader    Event = "leader.changed"
	TopEntered   Event = "top.entered"
	PeriodClosed Event = "period.closed"
	LeagueClosed Event = "league.closed"
	ScoreHeld    Event = "score.held"
	Ping         Event = "ping"
)

// Events lists what a hook may subscribe to, in the order forms show them.
var Events = []Event{NewLeader, TopEntered, PeriodClosed, LeagueClosed, ScoreHeld}

// Title names an event for people.
func (e Event) Title() string {
	switch e {
	case NewLeader:
		return "New leader"
	case TopEntered:
		return "Member enters the top N"
	case PeriodClosed:
		return "Period closed"
	case LeagueClosed:
		return "League period closed"
	case ScoreHeld:
		return "Score held for review"
	case Ping:
		return "Test event"
	}
	return string(e)
}

// Limits of a registration.
const (
	MaxHooks   = 10   // per board
	MaxURLLen  = 2048 // bytes
	MaxTop     = 100
	DefaultTop = 10
	logKeep    = 50 // delivery attempts kept per hook
)

// Hook is one registered endpoint of a board. It is stored as JSON, which
// the detection scripts read too: Created is Unix milliseconds so Lua can
// compare it with a period's end.
type Hook struct {
	ID      string       `json:"id"`
	URL     string       `json:"url"`
	Events  []Event      `json:"events"`
	Periods []board.Kind `json:"periods"` // the periods it follows; empty: every period the board keeps, later ones included (AllPeriods)
	Top     int          `json:"top"`     // N of "top N"
	Secret  string       `json:"secret"`
	Created int64        `json:"created"` // Unix ms
	Enabled bool         `json:"enabled"`
	By      string       `json:"by"`
	// BoardCreated is when the board it was registered on was created
	// (Unix ms): a board deleted and made again under its id is another
	// board, whose runner drops the hooks of the old one.
	BoardCreated int64 `json:"board_created"`
}

// CreatedAt is when the hook was registered.
func (h Hook) CreatedAt() time.Time { return time.UnixMilli(h.Created).UTC() }

// Wants reports whether the hook asked for event e.
func (h Hook) Wants(e Event) bool { return slices.Contains(h.Events, e) }

// AllPeriods reports whether the hook follows every period the board
// keeps, including those it enables later: a choice made when it was
// registered, never inferred from a list that names every period of today.
func (h Hook) AllPeriods() bool { return len(h.Periods) == 0 }

// Follows reports whether the hook follows periods of kind k.
func (h Hook) Follows(k board.Kind) bool { return h.AllPeriods() || slices.Contains(h.Periods, k) }

// Summary describes the hook for the audit log: never its secret.
func (h Hook) Summary() string {
	evs := make([]string, len(h.Events))
	for i, e := range h.Events {
		evs[i] = string(e)
	}
	ps := "every period"
	if !h.AllPeriods() {
		p := make([]string, len(h.Periods))
		for i, k := range h.Periods {
			p[i] = string(k)
		}
		ps = strings.Join(p, ",")
	}
	return fmt.Sprintf("%s (%s; %s; top %d)", RedactURL(h.URL), strings.Join(evs, ","), ps, h.Top)
}

// RedactURL is a hook's URL as logs and the audit log show it: without its
// query, where receivers often take a token.
func RedactURL(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[:i] + "?…"
	}
	return u
}

// orAll is ps, or all when ps is empty (a hook following every period).
func orAll(ps, all []board.Kind) []board.Kind {
	if len(ps) == 0 {
		return all
	}
	return ps
}

// Input is a registration as an admin sends it. The hook follows the
// Periods listed, exactly those (a board that enables another period later
// sends it nothing of it), or, with AllPeriods, every period the board
// keeps, including those it enables later. One of the two is required.
type Input struct {
	URL        string
	Events     []Event
	Periods    []board.Kind
	AllPeriods bool
	Top        int
}

// InvalidError says which fields of an Input are wrong, field -> message.
type InvalidError struct{ Fields map[string]string }

func (e *InvalidError) Error() string {
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + e.Fields[k]
	}
	return "hooks: invalid registration: " + strings.Join(parts, "; ")
}

// Errors of the registry.
var (
	ErrNotFound = errors.New("hooks: no such webhook")
	ErrTooMany  = fmt.Errorf("hooks: a board may have at most %d webhooks", MaxHooks)
)

// Check validates in against board b and returns it normalised. Unless
// allowPrivate, a URL whose host is plainly not public (an IP address
// outside the public internet, localhost, a local name) is refused.
func (in Input) Check(b *board.Board, allowPrivate bool) (Input, error) {
	bad := map[string]string{}
	in.URL = strings.TrimSpace(in.URL)
	if msg := checkURL(in.URL, allowPrivate); msg != "" {
		bad["url"] = msg
	}
	var evs []Event
	for _, e := range Events {
		if slices.Contains(in.Events, e) {
			evs = append(evs, e)
		}
	}
	if len(evs) != len(in.Events) || len(evs) == 0 {
		bad["events"] = "choose at least one of: new leader, entering the top N, period closed, league period closed"
	}
	if slices.Contains(evs, LeagueClosed) && b.League == nil {
		bad["events"] = "league period closed needs a league on the board: set one up in the board's settings first"
	}
	in.Events = evs
	var ps []board.Kind
	for _, k := range b.Periods {
		if slices.Contains(in.Periods, k) {
			ps = append(ps, k)
		}
	}
	switch {
	case in.AllPeriods && len(in.Periods) > 0:
		bad["periods"] = "choose every period or a list of periods, not both"
	case !in.AllPeriods && len(in.Periods) == 0:
		bad["periods"] = "choose at least one period, or every period (including any the board adds later)"
	case len(ps) != len(in.Periods):
		bad["periods"] = "choose periods this board keeps"
	}
	in.Periods = ps // in the board's order; none with AllPeriods
	if bad["periods"] == "" && slices.Contains(evs, PeriodClosed) && !slices.ContainsFunc(orAll(ps, b.Periods), board.Kind.Calendar) {
		bad["periods"] = "period closed needs a day, week, month or year: all time and rolling windows never close"
	}
	if bad["periods"] == "" && slices.Contains(evs, LeagueClosed) && b.League != nil && !slices.Contains(orAll(ps, b.Periods), b.League.Kind) {
		bad["periods"] = fmt.Sprintf("league period closed needs the league's period (%s) among those the hook follows", b.League.Kind)
	}
	if in.Top < 1 || in.Top > MaxTop {
		bad["top"] = fmt.Sprintf("must be a whole number from 1 to %d", MaxTop)
	}
	if len(bad) > 0 {
		return in, &InvalidError{Fields: bad}
	}
	return in, nil
}

// checkURL accepts absolute https URLs of a host, without credentials
// (they would show in the console) or a fragment, and, unless
// allowPrivate, of a host that may be public (localHost).
func checkURL(raw string, allowPrivate bool) string {
	switch {
	case raw == "":
		return "is required"
	case len(raw) > MaxURLLen:
		return "is longer than " + strconv.Itoa(MaxURLLen) + " characters"
	case !utf8.ValidString(raw) || strings.ContainsRune(raw, utf8.RuneError):
		return "is not valid UTF-8"
	case strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || unicode.IsControl(r) }):
		return "must not hold spaces or control characters"
	case strings.ContainsFunc(raw, board.IsBidiOrInvisible):
		// They make a URL read as another one in the console and the
		// audit log (a right-to-left override turns moc.elpmaxe around).
		return "must not hold bidi controls or invisible characters"
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "is not a URL"
	case u.Scheme != "https":
		return "must start with https:// (deliveries are only sent over TLS)"
	case u.Host == "" || u.Hostname() == "":
		return "needs a host name"
	case u.User != nil:
		return "must not hold a user name or password; put a token in the path or query, and check the signature"
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "must not hold a #fragment"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "has a bad port"
		}
	}
	if !allowPrivate {
		return localHost(u.Hostname())
	}
	return ""
}

func newID() string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return "wh_" + hex.EncodeToString(b)
}

// newSecret is 32 random bytes; receivers use the whole string as the HMAC key.
func newSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // no randomness: nothing is safe to sign with
	}
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b)
}
