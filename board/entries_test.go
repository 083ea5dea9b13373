package board

import (
	"math"
	"testing"
)

// TestMarkPrecedes: a mark comes before the rows of worse scores and,
// at its own score, before the entries Redis reads after it (ascending
// bytes, or descending when higher is better); without keys, by position.
func TestMarkPrecedes(t *testing.T) {
	m := Mark{Score: 5, Key: "b|x", Position: 3}
	for _, c := range []struct {
		name   string
		e      Entry
		higher bool
		want   bool
	}{
		{"worse score, higher better", Entry{Score: 4, Key: "z"}, true, true},
		{"better score, higher better", Entry{Score: 6, Key: "a"}, true, false},
		{"worse score, lower better", Entry{Score: 6, Key: "a"}, false, true},
		{"better score, lower better", Entry{Score: 4, Key: "z"}, false, false},
		{"tie, smaller bytes, higher better", Entry{Score: 5, Key: "b|w"}, true, true},
		{"tie, larger bytes, higher better", Entry{Score: 5, Key: "b|y"}, true, false},
		{"tie, larger bytes, lower better", Entry{Score: 5, Key: "b|y"}, false, true},
		{"tie, a longer key, lower better", Entry{Score: 5, Key: "b|x\x00"}, false, true},
		{"the marked row itself", Entry{Score: 5, Key: "b|x"}, false, false},
		{"infinite score", Entry{Score: math.Inf(-1), Key: "a"}, true, true},
		{"no key: later position", Entry{Score: 9, Position: 4}, true, true},
		{"no key: same position", Entry{Score: 0, Position: 3}, true, false},
	} {
		if got := m.Precedes(c.e, c.higher); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
