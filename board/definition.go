package board

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Order says which end of the board is the top.
type Order string

// Orders: points are higher-is-better, times and golf lower-is-better.
const (
	HigherIsBetter Order = "higher"
	LowerIsBetter  Order = "lower"
)

// TieBreak orders members whose score and extra fields are equal.
type TieBreak string

// Tie-breaks. Earliest and Latest use the instant the member reached its
// current score; Member is Redis' own order of equal scores (member bytes), for
// boards that outside writers update with ZINCRBY.
const (
	Earliest TieBreak = "earliest"
	Latest   TieBreak = "latest"
	ByMember TieBreak = "member"
)

// RankStyle says how tied members are numbered.
type RankStyle string

// Rank styles: competition 1,2,2,4; dense 1,2,2,3; ordinal 1,2,3,4.
const (
	Competition RankStyle = "competition"
	Dense       RankStyle = "dense"
	Ordinal     RankStyle = "ordinal"
)

// FormatType says how a score is written for people.
type FormatType string

// Score formats.
const (
	Integer  FormatType = "integer"  // 1,234,567
	Decimal  FormatType = "decimal"  // 1,234.50 with Format.Decimals places
	Duration FormatType = "duration" // milliseconds shown as m:ss.mmm
)

// Format is how a board's scores are shown and which values it accepts.
type Format struct {
	Type     FormatType
	Decimals int    // places for Decimal, 1-6
	Prefix   string // shown before the number, e.g. "$"
	Suffix   string // shown after the number, e.g. " pts"
}

// WindowMode says how a rolling window combines what its buckets hold.
type WindowMode string

// Window modes (redisstore/window.go): sum adds up the changes made inside the
// window (points boards); best keeps the best value offered inside it
// (high scores, times).
const (
	WindowSum  WindowMode = "sum"
	WindowBest WindowMode = "best"
)

// TeamMode says whether a board ranks teams, and how a team's score is made
// of its members' scores in a period (redisstore/team.go).
type TeamMode string

// Team modes: none, or the sum, average or best of the members' scores.
const (
	TeamsOff     TeamMode = ""
	TeamsSum     TeamMode = "sum"
	TeamsAverage TeamMode = "average"
	TeamsBest    TeamMode = "best"
)

// Visibility says who may read a board (web/request/gate.go).
type Visibility string

// Visibilities: public boards are listed and readable by anyone; unlisted
// ones are readable by anyone with their URL but listed nowhere; private
// ones are readable only with access (a share link, an API key), and
// answer as if they did not exist to anyone else.
const (
	Public   Visibility = "public"
	Unlisted Visibility = "unlisted"
	Private  Visibility = "private"
)

// NameMode says how a board names its members on shared surfaces: part of
// its privacy mode (rows/privacy.go).
type NameMode string

// Name modes: full names (the default), initials ("A. L."), or pseudonyms
// ("Player 7F3A"), stable per member within a board and not reversible to
// the member's id.
const (
	FullNames  NameMode = "full"
	Initials   NameMode = "initials"
	Pseudonyms NameMode = "pseudonyms"
)

// Field is an extra integer sort field that orders members whose primary
// scores are equal ("clears desc, then revives asc").
type Field struct {
	Name string
	Desc bool // higher values rank first
}

// Board is a leaderboard's definition. Order, TieBreak and Fields decide how
// entries are encoded in Redis, so they cannot change once the board exists.
type Board struct {
	ID            string
	Title         string
	Format        Format
	Order         Order
	Periods       []Kind // enabled period kinds, kept in the order of Kinds
	DefaultPeriod Kind   // the tab a board opens on; must be enabled
	TimeZone      string // IANA name; periods are computed in it
	// Schedule is the board's own period schedule, for kind Custom
	// (board/schedule.go): "0 18 * * FRI" or "every 72h from
	// 2026-12-01T00:00"; ScheduleName is what its periods are called
	// ("" for DefaultScheduleName).
	Schedule     string
	ScheduleName string
	TieBreak     TieBreak
	RankStyle    RankStyle
	Fields       []Field
	Cap          int // keep only the best Cap members per period; 0 keeps all
	// Retention is how many closed periods of each kind stay in Redis once
	// archived; older ones expire and are read from the archive. 0 expires
	// a period as soon as its final copy is safely archived. Definitions
	// from the API and the console default to DefaultRetention.
	Retention int
	// Window is how the rolling windows (last24h, last7d, last30d) combine
	// their buckets: WindowSum (the default) or WindowBest. It cannot
	// change while a window is enabled (the buckets hold one or the other).
	Window WindowMode
	// Teams, when set, keeps a team standing per period beside the members'
	// (redisstore/team.go).
	Teams TeamMode
	// Segments are the member attributes the board keeps a standing per
	// value of, in every period (board/segment.go): at most MaxSegments.
	Segments []string
	// League, when set, runs leagues on one calendar period kind
	// (board/league.go): tiers, cohorts, promotion and relegation.
	League *League
	// Visibility says who may read the board; Public unless set.
	Visibility Visibility
	// Names and TopOnly are the board's privacy mode: how the shared
	// surfaces (anonymous pages, share links, the widget, the wall display)
	// name members, and how many of the top they show (0: everyone). The
	// console, API keys and signed-in users with a role see everything; a
	// personal link sees its own member whole (rows/privacy.go).
	Names   NameMode
	TopOnly int
	Created time.Time
	Updated time.Time
	// Version counts the definition's writes. Writes send the version they
	// read and the script refuses a stale one, so no score is applied with
	// settings (periods, cap, zone, encoding) that have since changed.
	Version int64
	// FreezeAt is when the board's public standings freeze (redisstore/freeze.go):
	// from then on pages, widgets and API reads show the standings of that
	// instant while writes go on. Zero: not frozen. Only Freeze and
	// Unfreeze change it.
	FreezeAt time.Time
	// RevealAt is when a freeze lifts on its own (the reveal), zero for
	// never: only an unfreeze lifts it. Set with the freeze, or later.
	RevealAt time.Time
	// OpensAt and ClosesAt bound the board's contest (board/contest.go):
	// writes are refused before OpensAt and from ClosesAt on. Zero: no
	// bound.
	OpensAt  time.Time
	ClosesAt time.Time
	// Rules, when set, are the board's fair-play rules (board/rules.go).
	Rules *Rules
	// Sessions, when set, take scores only with a run's token (board/session.go).
	Sessions *Sessions

	loc   *time.Location
	sched *Schedule
	// LegacyUnits, set by the store: a decimal board written before scores were kept in units
	// (its sorted sets hold 12.34, not 1234); Store.Upgrade converts it.
	LegacyUnits bool
}

// Limits of a definition.
const (
	MaxFields   = 3
	MaxTitleLen = 120
	MaxAffixLen = 12
	MaxCap      = 10_000_000
	// DefaultRetention is how many closed periods of each kind a board
	// keeps in Redis unless it says otherwise: last week stays fast to read.
	DefaultRetention = 2
	MaxRetention     = 10_000
	// MaxTopOnly bounds a "top N only" privacy mode: a page's worth.
	MaxTopOnly    = 100
	maxIDLen      = 64
	maxDecimals   = 6
	maxFieldName  = 32
	defaultTZName = "UTC"
)

var (
	boardIDPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	fieldNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// Location is the board's time zone; UTC until the board has been validated.
func (b *Board) Location() *time.Location {
	if b.loc == nil {
		if loc, err := time.LoadLocation(b.TimeZone); err == nil && b.TimeZone != "" {
			b.loc = loc
		} else {
			return time.UTC
		}
	}
	return b.loc
}

// Guarded reports whether the board has a privacy mode: names hidden or
// only the top shown on its shared surfaces.
func (b *Board) Guarded() bool { return (b.Names != "" && b.Names != FullNames) || b.TopOnly > 0 }

// Enabled reports whether the board keeps periods of kind k.
func (b *Board) Enabled(k Kind) bool { return slices.Contains(b.Periods, k) }

// Current is the period of kind k that contains now in the board's zone.
func (b *Board) Current(k Kind, now time.Time) Period {
	if k == Custom {
		return b.Sched().PeriodAt(now)
	}
	return PeriodAt(k, now, b.Location())
}

// ParsePeriod reads a period of the board from its URL form: kind and key,
// where an empty key means the current period.
func (b *Board) ParsePeriod(kind, key string, now time.Time) (Period, error) {
	k := b.DefaultPeriod
	if kind != "" {
		var err error
		if k, err = ParseKind(kind); err != nil {
			return Period{}, err
		}
	}
	if !b.Enabled(k) {
		return Period{}, fmt.Errorf("%w: board %q has no %s period", ErrPeriodDisabled, b.ID, k)
	}
	if key == "" {
		return b.Current(k, now), nil
	}
	return b.PeriodOf(k, key)
}

// Normalize fills defaults: UTC, earliest tie-break, competition ranks, and a
// default period. It runs before Validate.
func (b *Board) Normalize() {
	b.ID = strings.TrimSpace(b.ID)
	b.Title = strings.TrimSpace(b.Title)
	if b.TimeZone == "" {
		b.TimeZone = defaultTZName
	}
	if b.TieBreak == "" {
		b.TieBreak = Earliest
	}
	if b.RankStyle == "" {
		b.RankStyle = Competition
	}
	if b.Order == "" {
		b.Order = HigherIsBetter
	}
	if b.Format.Type == "" {
		b.Format.Type = Integer
	}
	if b.Window == "" {
		b.Window = WindowSum
	}
	if b.Visibility == "" {
		b.Visibility = Public
	}
	if b.Names == "" {
		b.Names = FullNames
	}
	if len(b.Periods) == 0 {
		b.Periods = []Kind{AllTime}
	}
	// Keep periods in canonical order without duplicates.
	var ps []Kind
	for _, k := range Kinds {
		if slices.Contains(b.Periods, k) {
			ps = append(ps, k)
		}
	}
	for _, k := range b.Periods { // unknown kinds stay so Validate can name them
		if !slices.Contains(Kinds, k) && !slices.Contains(ps, k) {
			ps = append(ps, k)
		}
	}
	b.Periods = ps
	if b.DefaultPeriod == "" && len(ps) > 0 {
		b.DefaultPeriod = ps[0]
		if slices.Contains(ps, AllTime) {
			b.DefaultPeriod = AllTime
		}
	}
}

// CheckNew holds the rules for definitions being written that boards stored
// by earlier versions may break; such boards still load.
func (b *Board) CheckNew() error {
	if b.TieBreak == ByMember && b.RankStyle == Dense {
		// Plain ZADD/ZINCRBY, which member tie-break boards invite, cannot keep
		// the tie-group index that dense ranks read. Outside writers that want
		// dense ranks use FCALL podium_submit on an earliest/latest board.
		return NewFieldError(ErrInvalidBoard, "rank_style", "dense ranks need the earliest or latest tie-break: boards with the member tie-break are written with plain ZINCRBY, which cannot keep dense ranks right (outside writers of other boards use FCALL podium_submit)")
	}
	return nil
}

// DenseDrifts: a board whose dense index may lack tie groups: plain outside
// writes to boards made before CheckNew refused them, or a rebuild cut short
// when the board turned dense (UpdateBoard). Reads of a dense board repair a
// period's index when they meet a missing tie group (an unranked row).
func (b *Board) DenseDrifts() bool { return b.RankStyle == Dense }

// FieldErrors lists the field errors inside err, in order.
func FieldErrors(err error) []*FieldError {
	var out []*FieldError
	var walk func(error)
	walk = func(e error) {
		if fe, ok := e.(*FieldError); ok {
			out = append(out, fe)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
		} else if u := errors.Unwrap(e); u != nil {
			walk(u)
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

// CheckImmutable refuses changes to what the stored entries were encoded with.
func CheckImmutable(old, upd *Board) error {
	var errs []error
	if old.Order != upd.Order {
		errs = append(errs, NewFieldError(ErrImmutable, "order", "cannot change after creation; create a new board"))
	}
	if old.TieBreak != upd.TieBreak {
		errs = append(errs, NewFieldError(ErrImmutable, "tie_break", "cannot change after creation; create a new board"))
	}
	if old.Format.Unit() != upd.Format.Unit() {
		// Scores are stored in units of the format (board/score.go): changing
		// the decimal places would change every stored value's meaning.
		errs = append(errs, NewFieldError(ErrImmutable, "format.decimals", "cannot change after creation: scores are stored in units of %s; create a new board", old.Format.Unit()))
	}
	if !slices.Equal(old.Fields, upd.Fields) {
		errs = append(errs, NewFieldError(ErrImmutable, "fields", "cannot change after creation; create a new board"))
	}
	if old.Window != upd.Window && slices.ContainsFunc(old.Periods, Kind.Rolling) {
		// The buckets hold changes (sum) or offered values (best): read the
		// other way they would make wrong standings.
		errs = append(errs, NewFieldError(ErrImmutable, "window", "cannot change while a rolling window is enabled: turn the windows off first (their standings start again empty)"))
	}
	return errors.Join(errs...)
}

// HasControl reports whether s holds a control character.
func HasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}
