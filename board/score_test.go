package board

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

// FuzzParseScore: whatever text arrives, an accepted score is a whole number
// of units within ±2^53, equal to the text's exact value, and it writes back
// (Number, Display) as text of exactly that value.
func FuzzParseScore(f *testing.F) {
	for _, v := range []string{"0", "-0", "1", "-1", "0.1", "0.125", "1e15", "9007199254740992", "9007199254740993",
		"90071992547409.91", "90071992547409.92", "1e300", "1e-300", "NaN", "Infinity", "1,234.5", "+7", "00012", "1.", ".5", "1e+2", "1E-2", "-"} {
		for _, d := range []int{-1, 0, 2, 6} {
			f.Add(v, d)
		}
	}
	f.Fuzz(func(t *testing.T, text string, d int) {
		fm := Format{Type: Integer}
		switch {
		case d > 0 && d <= maxDecimals:
			fm = Format{Type: Decimal, Decimals: d}
		case d < 0:
			fm = Format{Type: Duration}
		}
		units, err := fm.ParseScore(text, true)
		if err != nil {
			return
		}
		if units != math.Trunc(units) || math.Abs(units) > MaxExact || math.Signbit(units) && units == 0 {
			t.Fatalf("%+v accepted %q as %v units", fm, text, units)
		}
		want, ok := new(big.Rat).SetString(strings.ReplaceAll(strings.TrimPrefix(text, "+"), ",", ""))
		got, _ := new(big.Rat).SetString(fm.Number(units))
		if !ok || got == nil || want.Cmp(got) != 0 {
			t.Fatalf("%+v: %q became %v units, written back as %q", fm, text, units, fm.Number(units))
		}
		if back, err := fm.ParseScore(fm.Number(units), false); err != nil || back != units {
			t.Fatalf("%+v: Number %q does not parse back to %v: %v %v", fm, fm.Number(units), units, back, err)
		}
		if fm.Type != Duration {
			shown := strings.TrimSuffix(strings.TrimPrefix(fm.Display(units), fm.Prefix), fm.Suffix)
			if back, err := fm.ParseScore(shown, true); err != nil || back != units {
				t.Fatalf("%+v: Display %q does not parse back to %v: %v %v", fm, shown, units, back, err)
			}
		}
	})
}

// TestScoreEdges: for 0-6 places, the largest and smallest accepted values
// come back exactly as sent, and the first value past them is refused.
func TestScoreEdges(t *testing.T) {
	for d := 0; d <= maxDecimals; d++ {
		fm := Format{Type: Integer}
		if d > 0 {
			fm = Format{Type: Decimal, Decimals: d}
		}
		maxText := fm.MaxText() // 2^53 units
		oneUnit := fm.Unit()
		for _, sign := range []string{"", "-"} {
			edge := sign + maxText
			units, err := fm.ParseScore(edge, false)
			if err != nil || math.Abs(units) != MaxExact {
				t.Fatalf("%d places: %s refused or changed: %v %v", d, edge, units, err)
			}
			if got := fm.Number(units); got != edge {
				t.Errorf("%d places: %s came back as %s", d, edge, got)
			}
			// One unit further is refused.
			past := new(big.Rat)
			past.SetString(edge)
			step, _ := new(big.Rat).SetString(oneUnit)
			if sign == "-" {
				step.Neg(step)
			}
			past.Add(past, step)
			if _, err := fm.ParseScore(past.FloatString(d), false); err == nil {
				t.Errorf("%d places: %s accepted", d, past.FloatString(d))
			}
			// Just inside the edge, every last digit comes back as sent.
			for last := 0; last <= 9; last++ {
				v := new(big.Rat).Set(past)
				v.Sub(v, new(big.Rat).Mul(step, big.NewRat(int64(2+last), 1)))
				text := v.FloatString(d)
				u, err := fm.ParseScore(text, false)
				if err != nil {
					t.Fatalf("%d places: %s refused: %v", d, text, err)
				}
				if got := fm.Number(u); strings.TrimRight(strings.TrimRight(got, "0"), ".") != strings.TrimRight(strings.TrimRight(text, "0"), ".") {
					t.Errorf("%d places: %s came back as %s", d, text, got)
				}
			}
		}
		if d > 0 {
			tooFine := "1." + strings.Repeat("0", d) + "1"
			if _, err := fm.ParseScore(tooFine, false); err == nil {
				t.Errorf("%d places: %s accepted", d, tooFine)
			}
		}
	}
	// The two values the issue names.
	dec := Format{Type: Decimal, Decimals: 2}
	if u, err := dec.ParseScore("90071992547409.01", false); err != nil || dec.Display(u) != "90,071,992,547,409.01" {
		t.Errorf("90071992547409.01 on a 2-place board: %v %q", err, dec.Display(u))
	}
	if _, err := (Format{Type: Integer}).ParseScore("9007199254740993", false); err == nil {
		t.Error("2^53+1 accepted on an integer board")
	}
	for _, bad := range []string{"", "-", "+", "1.", ".5", "1e", "1e+", "0x10", "NaN", "Infinity", "1_000", " 1", "1 ", "1e99999999999", "--1", strings.Repeat("1", 70)} {
		if _, err := (Format{Type: Integer}).ParseScore(bad, false); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, bad := range []string{"12,5", "1.2,5", "1,23", ",123", "1,234,5", "1,,234"} {
		if _, err := (Format{Type: Decimal, Decimals: 2}).ParseScore(bad, true); err == nil {
			t.Errorf("grouped %q accepted", bad)
		}
	}
	if got, err := (Format{Type: Decimal, Decimals: 2}).ParseScore("-1,234,567.89", true); err != nil || got != -123456789 {
		t.Errorf("grouped -1,234,567.89 = %v, %v", got, err)
	}
	for text, want := range map[string]float64{"1e3": 1000, "1.5e1": 15, "150e-1": 15, "-0": 0, "0.000": 0, "+12": 12, "0012": 12} {
		if got, err := (Format{Type: Integer}).ParseScore(text, false); err != nil || got != want {
			t.Errorf("%q = %v, %v; want %v", text, got, err, want)
		}
	}
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
