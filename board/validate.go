package board

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Validate checks every field and returns all problems at once, each a
// *FieldError wrapping ErrInvalidBoard (see FieldErrors).
func (b *Board) Validate() error {
	var p problems
	b.checkNames(&p)
	b.checkFormat(&p)
	b.checkPeriods(&p)
	b.checkRanking(&p)
	b.checkOptions(&p)
	b.checkSegments(&p)
	b.checkLeague(&p)
	b.checkContest(&p)
	b.checkRules(&p)
	b.checkSessions(&p)
	return errors.Join(p...)
}

// problems collects a definition's field errors.
type problems []error

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, NewFieldError(ErrInvalidBoard, field, format, args...))
}

// printable: valid UTF-8 without control characters, of at most n runes.
func printable(s string, n int) bool {
	return utf8.RuneCountInString(s) <= n && utf8.ValidString(s) && !HasControl(s) && !strings.ContainsRune(s, utf8.RuneError)
}

func (b *Board) checkNames(p *problems) {
	switch {
	case b.ID == "":
		p.add("id", "is required")
	case len(b.ID) > maxIDLen:
		p.add("id", "is longer than %d characters", maxIDLen)
	case !boardIDPattern.MatchString(b.ID):
		p.add("id", "may hold only lower-case letters, digits, '-' and '_', starting with a letter or digit")
	}
	switch {
	case b.Title == "":
		p.add("title", "is required")
	case !printable(b.Title, MaxTitleLen):
		p.add("title", "must be printable text of at most %d characters", MaxTitleLen)
	case strings.ContainsFunc(b.Title, IsBidiOrInvisible):
		p.add("title", "holds bidi controls or invisible characters, which could reorder the text around it")
	}
}

func (b *Board) checkFormat(p *problems) {
	switch b.Format.Type {
	case Integer, Duration:
		if b.Format.Decimals != 0 {
			p.add("format.decimals", "only decimal boards have decimal places")
		}
	case Decimal:
		if b.Format.Decimals < 1 || b.Format.Decimals > maxDecimals {
			p.add("format.decimals", "must be from 1 to %d", maxDecimals)
		}
	default:
		p.add("format.type", "must be integer, decimal or duration")
	}
	for _, a := range []struct{ field, v string }{{"format.prefix", b.Format.Prefix}, {"format.suffix", b.Format.Suffix}} {
		if !printable(a.v, MaxAffixLen) || strings.ContainsFunc(a.v, IsBidiOrInvisible) {
			p.add(a.field, "must be printable text of at most %d characters, without bidi controls", MaxAffixLen)
		}
	}
}

// checkPeriods checks the periods and the time zone, and keeps the zone.
func (b *Board) checkPeriods(p *problems) {
	for _, k := range b.Periods {
		if !slices.Contains(Kinds, k) {
			p.add("periods", "%q is not one of %s", k, kindNames)
		}
	}
	if len(b.Periods) == 0 {
		p.add("periods", "enable at least one period")
	}
	if !b.Enabled(b.DefaultPeriod) {
		p.add("default_period", "must be one of the enabled periods")
	}
	if loc, err := time.LoadLocation(b.TimeZone); err != nil || b.TimeZone == "Local" {
		p.add("time_zone", "%q is not an IANA time zone such as Europe/Paris", b.TimeZone)
	} else {
		b.loc = loc
	}
	b.checkSchedule(p)
}

// checkSchedule: kind Custom needs a schedule, and a schedule needs kind
// Custom, so neither is set in vain.
func (b *Board) checkSchedule(p *problems) {
	switch {
	case b.Schedule == "" && b.Enabled(Custom):
		p.add("schedule", "is required for the custom period: a cron expression like \"0 18 * * FRI\" or an interval like \"every 72h from 2026-12-01T00:00\"")
	case b.Schedule != "" && !b.Enabled(Custom):
		p.add("schedule", "is set but the custom period is not enabled: add \"custom\" to the periods")
	case b.Schedule != "":
		s, err := ParseSchedule(b.Schedule, b.ScheduleName, b.Location())
		if err != nil {
			p.add("schedule", "%v", err)
		} else {
			b.sched = s
		}
	}
	if !printable(b.ScheduleName, MaxScheduleName) || strings.ContainsFunc(b.ScheduleName, IsBidiOrInvisible) {
		p.add("schedule_name", "must be printable text of at most %d characters, without bidi controls", MaxScheduleName)
	} else if b.ScheduleName != "" && b.Schedule == "" {
		p.add("schedule_name", "names the periods of a schedule: set schedule too")
	}
}

func (b *Board) checkRanking(p *problems) {
	if b.Order != HigherIsBetter && b.Order != LowerIsBetter {
		p.add("order", "must be higher or lower (which score is better)")
	}
	if b.TieBreak != Earliest && b.TieBreak != Latest && b.TieBreak != ByMember {
		p.add("tie_break", "must be earliest, latest or member")
	}
	if b.RankStyle != Competition && b.RankStyle != Dense && b.RankStyle != Ordinal {
		p.add("rank_style", "must be competition, dense or ordinal")
	}
	if len(b.Fields) > MaxFields {
		p.add("fields", "at most %d extra sort fields", MaxFields)
	}
	seen := map[string]bool{}
	for i, f := range b.Fields {
		name := fmt.Sprintf("fields[%d].name", i)
		switch {
		case len(f.Name) == 0 || len(f.Name) > maxFieldName || !fieldNamePattern.MatchString(f.Name):
			p.add(name, "must be 1-%d lower-case letters, digits or '_', starting with a letter", maxFieldName)
		case seen[f.Name]:
			p.add(name, "%q is used twice", f.Name)
		}
		seen[f.Name] = true
	}
}

func (b *Board) checkOptions(p *problems) {
	if b.Teams != TeamsOff && b.Teams != TeamsSum && b.Teams != TeamsAverage && b.Teams != TeamsBest {
		p.add("teams", "must be empty (no teams), sum, average or best")
	}
	if b.Window != WindowSum && b.Window != WindowBest {
		p.add("window", "must be sum or best")
	}
	if b.Visibility != Public && b.Visibility != Unlisted && b.Visibility != Private {
		p.add("visibility", "must be public, unlisted or private")
	}
	if b.Names != FullNames && b.Names != Initials && b.Names != Pseudonyms {
		p.add("names", "must be full, initials or pseudonyms")
	}
	if b.TopOnly < 0 || b.TopOnly > MaxTopOnly {
		p.add("top_only", "must be from 0 (show everyone) to %d", MaxTopOnly)
	}
	if b.Cap < 0 || b.Cap > MaxCap {
		p.add("cap", "must be from 0 (no cap) to %d", MaxCap)
	}
	if b.Retention < 0 || b.Retention > MaxRetention {
		p.add("retention", "must be from 0 (expire closed periods once archived) to %d", MaxRetention)
	}
}
