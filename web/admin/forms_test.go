package admin

import (
	"net/url"
	"testing"

	"podium/board"
)

// FuzzAdminForms: form parsing never panics, and whatever it accepts is in
// range; it only reads.
func FuzzAdminForms(f *testing.F) {
	f.Add("arcade", "Arcade", "integer", "2", "week", "10", "clears", "m", "incr", "12", "r")
	f.Add("", "", "decimal", "x", "", "-1", "", "", "", "1e400", "")
	f.Add("a b", "\x00", "duration", "99999999999999999999", "hour", "abc", "ü", "\xff", "set", "NaN", "\n")
	f.Fuzz(func(t *testing.T, id, title, format, decimals, period, cp, field, member, op, value, reason string) {
		b, errs := parseBoardForm(url.Values{"id": {id}, "title": {title}, "format": {format}, "decimals": {decimals},
			"periods": {period}, "cap": {cp}, "field0": {field}, "field0_dir": {"desc"}})
		if len(errs) == 0 {
			b.Normalize()
			_ = b.Validate() // must not panic whatever it holds
		}
		fm := board.Format{Type: board.Decimal, Decimals: 2}
		sf, serrs := parseScoreForm(url.Values{"member": {member}, "op": {op}, "value": {value}, "reason": {reason}}, fm)
		if len(serrs) == 0 {
			if board.CheckMember(sf.Member) != nil || sf.Reason == "" || sf.Score != sf.Score {
				t.Fatalf("accepted %+v", sf)
			}
			// What was typed is exactly what is stored (in hundredths).
			if back, err := fm.ParseScore(fm.Number(sf.Score), false); err != nil || back != sf.Score {
				t.Fatalf("%q stored as %v, written back as %q", value, sf.Score, fm.Number(sf.Score))
			}
		}
	})
}
