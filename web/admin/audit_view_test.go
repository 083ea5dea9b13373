package admin

import (
	"reflect"
	"testing"

	"podium/audit"
	"podium/web/templates"
)

// TestChangesOf: every kind of entry the log holds, old and new, reads as
// lines of what changed; what cannot be read is shown as it was written.
func TestChangesOf(t *testing.T) {
	type line = templates.AuditChange
	l := func(what, before, after string) line { return line{What: what, Before: before, After: after} }
	pc := func(period, before, after string) audit.PeriodChange {
		return audit.PeriodChange{Period: period, Before: before, After: after}
	}
	for _, tc := range []struct {
		name string
		e    audit.Entry
		want []line
	}{
		{"a score in every period, in the board's order", audit.Entry{Action: "score.incr", Period: "all", Before: "1", After: "2",
			Periods: []audit.PeriodChange{pc("all", "1", "2"), pc("day:2026-11-22", "(none)", "1"), pc("week:2026-W47", "1", "2")}},
			[]line{l("22 Nov 2026", "(none)", "1"), l("Week 47, 2026", "1", "2"), l("All time", "1", "2")}},
		{"a score written before every period was kept", audit.Entry{Action: "score.set", Period: "month:2026-11", Before: "(none)", After: "5",
			Periods: []audit.PeriodChange{pc("month:2026-11", "(none)", "5")}}, []line{l("November 2026", "(none)", "5")}},
		{"a creation", audit.Entry{Action: "board.create", After: `{"id":"q","title":"Quiz","format":{"type":"decimal","decimals":2,"prefix":"$"},"order":"lower","periods":["year"],"default_period":"year","time_zone":"UTC","tie_break":"latest","rank_style":"dense","cap":10}`},
			[]line{l("Title", "", "Quiz"), l("Scores are", "", "Amounts with 2 decimal places"), l("Before the number", "", `"$"`), l("Better scores are", "", "Lower"), l("Periods", "", "Yearly"), l("Opens on", "", "Yearly"), l("Time zone", "", "UTC"), l("Equal scores", "", "last to reach the score ranks higher"), l("Rank numbers", "", "Dense"), l("Keep only", "", "the best 10"), l("Closed periods kept in Redis", "", "2")}},
		{"an edit", audit.Entry{Action: "board.update", Before: `{"id":"q","title":"Quiz","format":{"type":"integer"},"order":"higher","periods":["all"],"cap":5}`,
			After: `{"id":"q","title":"Quiz","format":{"type":"integer","suffix":" pts"},"order":"higher","periods":["all"]}`},
			[]line{l("After the number", "(nothing)", `" pts"`), l("Keep only", "the best 5", "everyone")}},
		{"an edit that changed nothing", audit.Entry{Action: "board.update", Before: `{"id":"q","title":"Quiz"}`, After: `{"id":"q","title":"Quiz"}`},
			[]line{l("Settings", "", "saved unchanged")}},
		{"a deletion", audit.Entry{Action: "board.delete", Before: `{"id":"q","title":"Quiz"}`, After: "(deleted)"}, []line{l("Board", "Quiz (q)", "(deleted)")}},
		{"a definition that is not JSON", audit.Entry{Action: "board.update", Before: "{broken", After: "x"}, []line{l("", "{broken", "x")}},
		{"a rename", audit.Entry{Action: "member.rename", Before: "ann", After: "Ann"}, []line{l("Name", "ann", "Ann")}},
		{"a team move", audit.Entry{Action: "member.team", Before: "", After: "Red"}, []line{l("Team", "(no team)", "Red")}},
		{"a reset", audit.Entry{Action: "period.reset", Period: "year:2026", Before: "3 members", After: "0 members"}, []line{l("2026", "3 members", "0 members")}},
		{"a period it cannot read", audit.Entry{Action: "member.remove", Period: "week:nope", Before: "3", After: "(removed)"}, []line{l("week:nope", "3", "(removed)")}},
		{"a key", audit.Entry{Action: "apikey.create", After: "bot (k1)"}, []line{l("", "", "bot (k1)")}},
		{"nothing to say", audit.Entry{Action: "session.end"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := changesOf(tc.e); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
