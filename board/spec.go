package board

import (
	"slices"
	"strings"
	"time"
)

// Spec is a board definition as JSON: what the API reads and writes ("boards
// as code") and what the audit log records of a definition's changes.
type Spec struct {
	ID            string      `json:"id"`
	Title         string      `json:"title"`
	Format        FormatSpec  `json:"format"`
	Order         string      `json:"order"`
	Periods       []string    `json:"periods"`
	DefaultPeriod string      `json:"default_period,omitempty"`
	TimeZone      string      `json:"time_zone,omitempty"`
	Schedule      string      `json:"schedule,omitempty"`      // the custom period's schedule (board/schedule.go)
	ScheduleName  string      `json:"schedule_name,omitempty"` // what its periods are called: Round (absent)
	TieBreak      string      `json:"tie_break,omitempty"`
	RankStyle     string      `json:"rank_style,omitempty"`
	Fields        []FieldSpec `json:"fields,omitempty"`
	Cap           int         `json:"cap,omitempty"`
	Retention     *int        `json:"retention,omitempty"`  // absent: DefaultRetention
	Window        string      `json:"window,omitempty"`     // how rolling windows combine: sum (absent) or best
	Teams         string      `json:"teams,omitempty"`      // team standings: sum, average or best; absent or "none": none
	Segments      []string    `json:"segments,omitempty"`   // member attributes with a standing per value (board/segment.go)
	League        *League     `json:"league,omitempty"`     // leagues on one period kind (board/league.go)
	Visibility    string      `json:"visibility,omitempty"` // public (absent), unlisted or private
	Names         string      `json:"names,omitempty"`      // privacy mode: full (absent), initials or pseudonyms
	TopOnly       *int        `json:"top_only,omitempty"`   // privacy mode: show only the top N (absent or 0: everyone)
	Created       *time.Time  `json:"created,omitempty"`
	Updated       *time.Time  `json:"updated,omitempty"`
	// FreezeAt is when the board's public standings froze, or will
	// (redisstore/freeze.go); read only: PUT /boards/{board}/freeze sets it.
	FreezeAt *time.Time `json:"freeze_at,omitempty"`
	// RevealAt is when the freeze lifts on its own; read only, as FreezeAt.
	RevealAt *time.Time `json:"reveal_at,omitempty"`
	// OpensAt and ClosesAt bound a contest: writes are refused outside
	// (board/contest.go). Absent: no bound.
	OpensAt  *time.Time `json:"opens_at,omitempty"`
	ClosesAt *time.Time `json:"closes_at,omitempty"`
	// Rules are the board's fair-play rules (board/rules.go); absent: none.
	Rules *Rules `json:"rules,omitempty"`
	// Sessions take scores only with a run's token (board/session.go); absent: none.
	Sessions *Sessions `json:"sessions,omitempty"`
}

// FormatSpec is Format as JSON.
type FormatSpec struct {
	Type     string `json:"type"`
	Decimals int    `json:"decimals,omitempty"`
	Prefix   string `json:"prefix,omitempty"`
	Suffix   string `json:"suffix,omitempty"`
}

// FieldSpec is Field as JSON.
type FieldSpec struct {
	Name string `json:"name"`
	Desc bool   `json:"desc,omitempty"`
}

// SpecOf is b as JSON.
func SpecOf(b *Board) Spec {
	j := Spec{
		ID: b.ID, Title: b.Title, Order: string(b.Order), DefaultPeriod: string(b.DefaultPeriod),
		TimeZone: b.TimeZone, TieBreak: string(b.TieBreak), RankStyle: string(b.RankStyle), Cap: b.Cap, Window: string(b.Window), Teams: string(b.Teams),
		Schedule: b.Schedule, ScheduleName: b.ScheduleName,
		Visibility: string(b.Visibility), Names: string(b.Names),
		Format:  FormatSpec{Type: string(b.Format.Type), Decimals: b.Format.Decimals, Prefix: b.Format.Prefix, Suffix: b.Format.Suffix},
		Periods: []string{}, Created: &b.Created, Updated: &b.Updated, Retention: &b.Retention,
		Segments: slices.Clone(b.Segments), League: b.League.Clone(), Rules: b.Rules.Clone(),
	}
	if b.Sessions != nil {
		ss := *b.Sessions
		j.Sessions = &ss
	}
	if b.TopOnly > 0 {
		n := b.TopOnly
		j.TopOnly = &n
	}
	for _, k := range b.Periods {
		j.Periods = append(j.Periods, string(k))
	}
	for _, f := range b.Fields {
		j.Fields = append(j.Fields, FieldSpec(f))
	}
	if !b.FreezeAt.IsZero() {
		at := b.FreezeAt
		j.FreezeAt = &at
	}
	j.RevealAt, j.OpensAt, j.ClosesAt = timeOrNil(b.RevealAt), timeOrNil(b.OpensAt), timeOrNil(b.ClosesAt)
	return j
}

// Board is the definition a Spec describes, not yet normalized or validated.
func (j Spec) Board() Board {
	b := Board{
		ID: j.ID, Title: j.Title, Order: Order(j.Order), DefaultPeriod: Kind(j.DefaultPeriod),
		TimeZone: j.TimeZone, TieBreak: TieBreak(j.TieBreak), RankStyle: RankStyle(j.RankStyle), Cap: j.Cap, Window: WindowMode(j.Window), Teams: TeamMode(strings.TrimPrefix(j.Teams, "none")),
		Schedule: strings.TrimSpace(j.Schedule), ScheduleName: strings.TrimSpace(j.ScheduleName),
		Visibility: Visibility(j.Visibility), Names: NameMode(j.Names),
		Format:    Format{Type: FormatType(j.Format.Type), Decimals: j.Format.Decimals, Prefix: j.Format.Prefix, Suffix: j.Format.Suffix},
		Retention: DefaultRetention, Segments: slices.Clone(j.Segments), League: j.League.Clone(),
	}
	if j.Rules != nil && (j.Rules.Encode() != "" || (j.Rules.OnBreak != "" && j.Rules.OnBreak != RulesRefuse)) {
		b.Rules = j.Rules.Clone() // {} (or only on_break: refuse) is no rules
	}
	if j.Sessions != nil && *j.Sessions != (Sessions{}) {
		ss := *j.Sessions // {} is no sessions
		b.Sessions = &ss
	}
	if j.Retention != nil {
		b.Retention = *j.Retention
	}
	if j.TopOnly != nil {
		b.TopOnly = *j.TopOnly
	}
	if j.OpensAt != nil {
		b.OpensAt = j.OpensAt.UTC().Truncate(time.Microsecond)
	}
	if j.ClosesAt != nil {
		b.ClosesAt = j.ClosesAt.UTC().Truncate(time.Microsecond)
	}
	for _, k := range j.Periods {
		b.Periods = append(b.Periods, Kind(k))
	}
	for _, f := range j.Fields {
		b.Fields = append(b.Fields, Field(f))
	}
	return b
}

// PrimaryChange is the change of a result to tell people about: the one in
// the board's default period, else the last enabled one.
func PrimaryChange(b *Board, cs []Change) (Change, bool) {
	for _, c := range cs {
		if c.Period.Kind == b.DefaultPeriod {
			return c, true
		}
	}
	if len(cs) > 0 {
		return cs[len(cs)-1], true
	}
	return Change{}, false
}

// timeOrNil is t's address, or nil for the zero time.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
