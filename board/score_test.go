package board

import (
	"math"
	"strconv"
	"testing"
)

// FuzzCheckScore: whatever number arrives, an accepted score is finite, within
// the board's exact range, as precise as the board shows, and displayable.
func FuzzCheckScore(f *testing.F) {
	for _, v := range []float64{0, 1, -1, 0.1, 0.125, 1e15, MaxExact, MaxExact + 2, 1e300, math.Inf(1), math.NaN(), math.Copysign(0, -1)} {
		for _, d := range []int{-1, 0, 2, 6} {
			f.Add(v, d)
		}
	}
	f.Fuzz(func(t *testing.T, v float64, d int) {
		fm := Format{Type: Integer}
		switch {
		case d > 0 && d <= maxDecimals:
			fm = Format{Type: Decimal, Decimals: d}
		case d < 0:
			fm = Format{Type: Duration}
		}
		got, err := fm.CheckScore(v)
		if err != nil {
			return
		}
		if math.IsNaN(got) || math.IsInf(got, 0) || math.Abs(got) > fm.MaxScore() || math.Signbit(got) && got == 0 {
			t.Fatalf("%+v accepted %v as %v", fm, v, got)
		}
		if fm.Type != Decimal && got != math.Trunc(got) {
			t.Fatalf("%+v accepted a fraction %v", fm, got)
		}
		s := fm.Display(got)
		if fm.Type == Integer {
			if back, err := strconv.ParseFloat(stripCommas(s), 64); err != nil || back != got {
				t.Fatalf("display %q does not read back as %v", s, got)
			}
		}
	})
}

func stripCommas(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != ',' {
			out = append(out, s[i])
		}
	}
	return string(out)
}

func TestCheckMember(t *testing.T) {
	ok := []string{"a", "player-1", "Émile Zola", "user@example.com", "a|b", "{x}"}
	bad := []string{"", " lead", "trail ", "tab\there", "nul\x00", "\xff", string(make([]byte, MaxMemberLen+1))}
	for _, m := range ok {
		if err := CheckMember(m); err != nil {
			t.Errorf("CheckMember(%q) = %v", m, err)
		}
	}
	for _, m := range bad {
		if err := CheckMember(m); err == nil {
			t.Errorf("CheckMember(%q) accepted", m)
		}
	}
}
