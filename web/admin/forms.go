package admin

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"podium/board"
	"podium/web/request"
)

// formErrors maps a field name to the message shown beside it.
type formErrors map[string]string

// parseBoardForm reads the board form. It never fails as a whole: what cannot
// be read becomes an error beside its field, and Validate adds the rest.
func parseBoardForm(v url.Values) (board.Board, formErrors) {
	errs := formErrors{}
	b := board.Board{
		ID:            strings.TrimSpace(v.Get("id")),
		Title:         strings.TrimSpace(v.Get("title")),
		Format:        board.Format{Type: board.FormatType(v.Get("format")), Prefix: v.Get("prefix"), Suffix: v.Get("suffix")},
		Order:         board.Order(v.Get("order")),
		DefaultPeriod: board.Kind(v.Get("default_period")),
		TimeZone:      strings.TrimSpace(v.Get("time_zone")),
		Schedule:      strings.TrimSpace(v.Get("schedule")),
		ScheduleName:  strings.TrimSpace(v.Get("schedule_name")),
		TieBreak:      board.TieBreak(v.Get("tie_break")),
		RankStyle:     board.RankStyle(v.Get("rank_style")),
		Window:        board.WindowMode(v.Get("window")),
		Teams:         board.TeamMode(strings.TrimPrefix(v.Get("teams"), "none")),
		Visibility:    board.Visibility(v.Get("visibility")),
		Names:         board.NameMode(v.Get("names")),
	}
	if b.Format.Type == board.Decimal {
		if n, err := strconv.Atoi(strings.TrimSpace(v.Get("decimals"))); err == nil {
			b.Format.Decimals = n
		} else {
			errs["format.decimals"] = "must be a whole number from 1 to 6"
		}
	}
	// "country, class": Validate names what is wrong.
	b.Segments = strings.FieldsFunc(v.Get("segments"), func(r rune) bool { return r == ',' || r == ' ' })
	if k := v.Get("league_kind"); k != "" {
		b.League = parseLeague(v, board.Kind(k), errs)
	}
	parseContest(v, &b, errs)
	b.Rules = parseRules(v, errs)
	for _, k := range v["periods"] {
		b.Periods = append(b.Periods, board.Kind(k))
	}
	if len(b.Periods) == 0 {
		errs["periods"] = "enable at least one period"
	}
	if c := strings.TrimSpace(v.Get("cap")); c != "" {
		if n, err := strconv.Atoi(c); err == nil {
			b.Cap = n
		} else {
			errs["cap"] = "must be a whole number; 0 or empty keeps everyone"
		}
	}
	if t := strings.TrimSpace(v.Get("top_only")); t != "" {
		if n, err := strconv.Atoi(t); err == nil {
			b.TopOnly = n
		} else {
			errs["top_only"] = fmt.Sprintf("must be a whole number from 1 to %d; empty shows everyone", board.MaxTopOnly)
		}
	}
	b.Retention = board.DefaultRetention
	if r := strings.TrimSpace(v.Get("retention")); r != "" {
		if n, err := strconv.Atoi(r); err == nil {
			b.Retention = n
		} else {
			errs["retention"] = fmt.Sprintf("must be a whole number from 0 to %d", board.MaxRetention)
		}
	}
	for i := range board.MaxFields {
		name := strings.TrimSpace(v.Get(fmt.Sprintf("field%d", i)))
		if name == "" {
			continue
		}
		b.Fields = append(b.Fields, board.Field{Name: name, Desc: v.Get(fmt.Sprintf("field%d_dir", i)) == "desc"})
	}
	return b, errs
}

// parseLeague reads the board form's league section: tiers one per line
// or comma-separated, lowest first; an empty cohort size is the default.
// board.CheckLeague names what else is wrong.
func parseLeague(v url.Values, kind board.Kind, errs formErrors) *board.League {
	l := &board.League{Kind: kind, IdleDrops: v.Get("league_idle_drops") != ""}
	for _, t := range strings.FieldsFunc(v.Get("league_tiers"), func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if t = strings.TrimSpace(t); t != "" {
			l.Tiers = append(l.Tiers, t)
		}
	}
	num := func(name, field string, into *int, msg string) {
		s := strings.TrimSpace(v.Get(name))
		if s == "" && name == "league_cohort_size" {
			return
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			errs[field] = msg
			return
		}
		*into = n
	}
	num("league_cohort_size", "league.cohort_size", &l.CohortSize, fmt.Sprintf("must be a whole number from 2 to %d; empty: %d", board.MaxCohortSize, board.DefaultCohortSize))
	num("league_promote", "league.promote", &l.Promote, "must be a whole number: 0 promotes no one")
	num("league_relegate", "league.relegate", &l.Relegate, "must be a whole number: 0 relegates no one")
	return l
}

// parseRules reads the board form's fair-play section: each bound a whole
// number of the board's unit, empty for none. Validate names what else is
// wrong.
func parseRules(v url.Values, errs formErrors) *board.Rules {
	r := &board.Rules{OnBreak: v.Get("rules_on_break")}
	for _, name := range board.RuleNames {
		s := strings.ReplaceAll(strings.TrimSpace(v.Get("rules_"+name)), ",", "")
		if s == "" {
			continue
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			errs["rules."+name] = "must be a whole number of the board's unit; empty: no bound"
			continue
		}
		*r.Bound(name) = &n
	}
	if r.Encode() == "" && !r.Holds() {
		if r.OnBreak != "" && r.OnBreak != board.RulesRefuse {
			errs["rules.on_break"] = "choose refuse or hold"
		}
		return nil
	}
	return r
}

// withFixed is the edit form with the settings fixed at creation filled in
// from old where the form does not send them: the edit form shows them as
// text. Where a request does send one, it is kept, so that a change is
// refused (board.ErrImmutable) rather than dropped.
func withFixed(form url.Values, old *board.Board) url.Values {
	v := url.Values{}
	for k, vs := range form {
		v[k] = vs
	}
	keep := func(k, val string) {
		if !v.Has(k) {
			v.Set(k, val)
		}
	}
	keep("order", string(old.Order))
	keep("tie_break", string(old.TieBreak))
	keep("format", string(old.Format.Type))
	keep("decimals", strconv.Itoa(old.Format.Decimals))
	if !sendsFields(form) {
		for i, f := range old.Fields {
			v.Set(fmt.Sprintf("field%d", i), f.Name)
			v.Set(fmt.Sprintf("field%d_dir", i), map[bool]string{true: "desc", false: "asc"}[f.Desc])
		}
	}
	return v
}

// sendsFields reports whether a board form says anything of extra sort
// fields.
func sendsFields(form url.Values) bool {
	for i := range board.MaxFields {
		if form.Has(fmt.Sprintf("field%d", i)) || form.Has(fmt.Sprintf("field%d_dir", i)) {
			return true
		}
	}
	return false
}

// fixedChanges refuses, by name, changes to settings fixed at creation that
// would otherwise be passed over without a word (a direction for an extra
// sort field the board does not have: a row with no name is skipped) or be
// blamed on another field (scores turned into amounts with decimals, or
// back). The store refuses the others (board.ErrImmutable).
func fixedChanges(form url.Values, old *board.Board) formErrors {
	errs := formErrors{}
	if form.Has("format") && (form.Get("format") == string(board.Decimal)) != (old.Format.Type == board.Decimal) {
		errs["format.type"] = fmt.Sprintf("cannot change to or from amounts with decimals after creation: scores are stored in units of %s; create a new board", old.Format.Unit())
	}
	for i := len(old.Fields); i < board.MaxFields; i++ {
		if strings.TrimSpace(form.Get(fmt.Sprintf("field%d", i))) == "" && form.Has(fmt.Sprintf("field%d_dir", i)) {
			errs["fields"] = fmt.Sprintf("cannot change after creation: the board has %d extra sort %s; create a new board",
				len(old.Fields), map[bool]string{true: "field", false: "fields"}[len(old.Fields) == 1])
		}
	}
	return errs
}

// scoreForm is the adjust-score form.
type scoreForm struct {
	Member, Op, Value, Name, Reason, Team string
	Score                                 float64
}

// parseScoreForm reads and checks the score form; the value is read exactly
// in the board's units (board.Format.ParseScore), thousands separators allowed.
func parseScoreForm(v url.Values, fm board.Format) (scoreForm, formErrors) {
	f := scoreForm{
		Member: strings.TrimSpace(v.Get("member")), Op: v.Get("op"), Value: strings.TrimSpace(v.Get("value")),
		Name: strings.TrimSpace(v.Get("name")), Reason: strings.TrimSpace(v.Get("reason")), Team: strings.TrimSpace(v.Get("team")),
	}
	errs := formErrors{}
	if err := board.CheckMember(f.Member); err != nil {
		errs["member"] = request.Reason(err)
	}
	if _, err := board.ParseOp(f.Op); err != nil || f.Op == "" {
		errs["op"] = "choose set, increment, decrement or best"
	}
	n, err := fm.ParseScore(f.Value, true)
	switch {
	case f.Value == "":
		errs["value"] = "enter a number"
	case err != nil:
		errs["value"] = request.Reason(err)
	default:
		f.Score = n
	}
	if f.Name != "" {
		if err := board.CheckName(f.Name); err != nil {
			errs["name"] = request.Reason(err)
		}
	}
	if f.Reason == "" {
		errs["reason"] = "say why, for the audit log"
	} else if utf8.RuneCountInString(f.Reason) > 200 {
		errs["reason"] = "at most 200 characters"
	}
	return f, errs
}
