package admin

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"podium/audit"
	"podium/board"
	"podium/web/templates"
)

// changesOf says what an audit entry changed, a line each, in words: a
// score's before and after in every period it wrote, the settings of a
// board it created, the settings an edit changed. Entries hold what they
// held when written (a definition as JSON, one period for scores written
// before the log kept them all); whatever cannot be read is shown as it is.
func changesOf(e audit.Entry) []templates.AuditChange {
	if len(e.Periods) > 0 {
		ps := slices.Clone(e.Periods)
		slices.SortStableFunc(ps, func(a, b audit.PeriodChange) int { return kindOrder(a.Period) - kindOrder(b.Period) })
		out := make([]templates.AuditChange, len(ps))
		for i, p := range ps {
			out[i] = templates.AuditChange{What: periodName(p.Period), Before: p.Before, After: p.After}
		}
		return out
	}
	if strings.HasPrefix(e.Action, "board.") {
		if lines, ok := definitionChanges(e.Before, e.After); ok {
			return lines
		}
	}
	if e.Before == "" && e.After == "" {
		return nil
	}
	what := periodName(e.Period)
	switch {
	case e.Action == "member.rename":
		what = "Name"
	case e.Action == "member.team":
		b, a := e.Before, e.After
		if b == "" {
			b = "(no team)"
		}
		if a == "" {
			a = "(no team)"
		}
		return []templates.AuditChange{{What: "Team", Before: b, After: a}}
	case e.Period == "":
		what = ""
	}
	return []templates.AuditChange{{What: what, Before: e.Before, After: e.After}}
}

// kindOrder places a period label's kind as boards list them: day first,
// all time last.
func kindOrder(label string) int {
	kind, _, _ := strings.Cut(label, ":")
	if i := slices.Index(board.Kinds, board.Kind(kind)); i >= 0 {
		return i
	}
	return len(board.Kinds)
}

// periodName is a period's label ("week:2026-W47") as people say it:
// "Week 47, 2026"; a label it cannot read stays as it is.
func periodName(label string) string {
	switch label {
	case "":
		return ""
	case string(board.AllTime):
		return "All time"
	}
	if k := board.Kind(label); k.Rolling() {
		return board.Period{Kind: k}.Title()
	}
	kind, key, _ := strings.Cut(label, ":")
	k, err := board.ParseKind(kind)
	if err != nil {
		return label
	}
	p, err := board.ParsePeriod(k, key, time.UTC)
	if err != nil {
		return label
	}
	return p.Short()
}

// definitionChanges reads the before and after of a board's definition
// (audit.Definition's JSON): a creation lists the settings made, an edit
// the settings it changed, a deletion the board that went. ok is false when
// neither side is a definition.
func definitionChanges(before, after string) ([]templates.AuditChange, bool) {
	old, hadOld := specOf(before)
	upd, hasNew := specOf(after)
	switch {
	case hadOld && hasNew:
		var out []templates.AuditChange
		was := settings(old)
		for i, s := range settings(upd) {
			if s.value != was[i].value {
				out = append(out, templates.AuditChange{What: s.name, Before: was[i].shown(), After: s.shown()})
			}
		}
		if len(out) == 0 {
			out = append(out, templates.AuditChange{What: "Settings", After: "saved unchanged"})
		}
		return out, true
	case hasNew:
		var out []templates.AuditChange
		for _, s := range settings(upd) {
			if s.value != "" {
				out = append(out, templates.AuditChange{What: s.name, After: s.value})
			}
		}
		return out, true
	case hadOld:
		return []templates.AuditChange{{What: "Board", Before: old.Title + " (" + old.ID + ")", After: after}}, true
	}
	return nil, false
}

func specOf(s string) (board.Spec, bool) {
	var j board.Spec
	if !strings.HasPrefix(s, "{") || json.Unmarshal([]byte(s), &j) != nil {
		return board.Spec{}, false
	}
	return j, true
}

// setting is one setting of a definition in words; value "" is a setting
// left empty, which a change shows as none.
type setting struct{ name, value, none string }

func (s setting) shown() string {
	if s.value == "" {
		return s.none
	}
	return s.value
}

// settings are a definition's settings, in the order of the board form and
// under its labels.
func settings(j board.Spec) []setting {
	scores := map[string]string{"integer": "Whole numbers", "duration": "Times (milliseconds)"}[j.Format.Type]
	switch {
	case j.Format.Type == "decimal":
		scores = fmt.Sprintf("Amounts with %d decimal places", j.Format.Decimals)
	case scores == "":
		scores = j.Format.Type
	}
	periods := make([]string, len(j.Periods))
	for i, p := range j.Periods {
		periods[i] = kindName(p)
	}
	fields := make([]string, len(j.Fields))
	for i, f := range j.Fields {
		fields[i] = f.Name + map[bool]string{true: " (more is better)", false: " (fewer is better)"}[f.Desc]
	}
	keep := ""
	if j.Cap > 0 {
		keep = fmt.Sprintf("the best %d", j.Cap)
	}
	retention := fmt.Sprint(board.DefaultRetention)
	if j.Retention != nil {
		retention = fmt.Sprint(*j.Retention)
	}
	tie, ok := map[string]string{"earliest": "first to reach the score ranks higher", "latest": "last to reach the score ranks higher", "member": "Redis order"}[j.TieBreak]
	if !ok {
		tie = j.TieBreak
	}
	return []setting{
		{"Title", j.Title, "(none)"},
		{"Scores are", scores, "(none)"},
		{"Before the number", quoted(j.Format.Prefix), "(nothing)"},
		{"After the number", quoted(j.Format.Suffix), "(nothing)"},
		{"Better scores are", capital(j.Order), "(none)"},
		{"Periods", strings.Join(periods, ", "), "(none)"},
		{"Opens on", kindName(j.DefaultPeriod), "(none)"},
		{"Time zone", j.TimeZone, "UTC"},
		{"Own schedule", scheduleName(j), "(none)"},
		{"Equal scores", tie, "(none)"},
		{"Rank numbers", capital(j.RankStyle), "(none)"},
		{"Extra sort fields", strings.Join(fields, ", "), "(none)"},
		{"Keep only", keep, "everyone"},
		{"Closed periods kept in Redis", retention, "(none)"},
		{"Rolling windows", windowName(j), "(none)"},
		{"Teams", teamsName(j.Teams), "(none)"},
		{"Segments", strings.Join(j.Segments, ", "), "(none)"},
		{"League", leagueName(j.League), "(none)"},
		{"Visibility", capital(j.Visibility), "Public"}, // definitions from before visibility: public
	}
}

// scheduleName is a board's own schedule and what its periods are called:
// "0 18 * * FRI (Sprint)".
func scheduleName(j board.Spec) string {
	if j.Schedule == "" || j.ScheduleName == "" {
		return j.Schedule
	}
	return j.Schedule + " (" + j.ScheduleName + ")"
}

// teamsName says how a board ranks teams; "" (not worth a line) without.
func teamsName(mode string) string {
	switch mode {
	case "", "none":
		return ""
	case string(board.TeamsSum):
		return "Sum of the members' scores"
	case string(board.TeamsAverage):
		return "Average of the members' scores"
	case string(board.TeamsBest):
		return "Best member's score"
	}
	return mode
}

// leagueName says what a board's league is in a line: its period, tiers
// and moves.
func leagueName(l *board.League) string {
	if l == nil {
		return ""
	}
	s := fmt.Sprintf("%s: %s; cohorts of %d, %d up, %d down", kindName(string(l.Kind)), strings.Join(l.Tiers, ", "), l.Size(), l.Promote, l.Relegate)
	if l.IdleDrops {
		s += "; idle members drop a tier"
	}
	return s
}

// windowName says how a board's rolling windows combine their buckets; ""
// (not worth a line) when it has none on and the mode is the default.
func windowName(j board.Spec) string {
	on := slices.ContainsFunc(j.Periods, func(k string) bool { return board.Kind(k).Rolling() })
	mode := j.Window
	if !on && (mode == "" || mode == string(board.WindowSum)) {
		return ""
	}
	switch mode {
	case "", string(board.WindowSum):
		return "Sum of the changes inside the window"
	case string(board.WindowBest):
		return "Best score inside the window"
	}
	return mode
}

func kindName(k string) string {
	if name, ok := map[string]string{"day": "Daily", "week": "Weekly", "month": "Monthly", "year": "Yearly", "custom": "Own schedule", "all": "All time",
		"last24h": "Last 24 hours", "last7d": "Last 7 days", "last30d": "Last 30 days"}[k]; ok {
		return name
	}
	return k
}

// quoted shows an affix with its spaces: `" pts"`.
func quoted(s string) string {
	if s == "" {
		return ""
	}
	return `"` + s + `"`
}

func capital(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
