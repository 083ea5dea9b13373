package board

import (
	"errors"
	"testing"
)

func TestRulesValidate(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name  string
		rules *Rules
		field string // "" valid
	}{
		{"none", nil, ""},
		{"every rule", &Rules{MinValue: n(0), MaxValue: n(100), MaxScore: n(1000), MaxRisePerMinute: n(50), MaxRisePerHour: n(500), OnBreak: RulesHold}, ""},
		{"negative values allowed", &Rules{MinValue: n(-5), MaxValue: n(-1)}, ""},
		{"min above max", &Rules{MinValue: n(10), MaxValue: n(9)}, "rules.max_value"},
		{"past 2^53", &Rules{MaxScore: n(MaxExact + 1)}, "rules.max_score"},
		{"a rise of 0", &Rules{MaxRisePerMinute: n(0)}, "rules.max_rise_per_minute"},
		{"a negative rise", &Rules{MaxRisePerHour: n(-3)}, "rules.max_rise_per_hour"},
		{"unknown on_break", &Rules{MaxScore: n(1), OnBreak: "ignore"}, "rules.on_break"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Board{ID: "b", Title: "B", Rules: tc.rules}
			b.Normalize()
			err := b.Validate()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("Validate = %v, want a problem with %s", err, tc.field)
			}
		})
	}
}

func TestRulesEncodeRoundTrip(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	for _, r := range []*Rules{
		nil,
		{MaxScore: n(1000)},
		{MinValue: n(-9007199254740992), MaxValue: n(9007199254740992), MaxRisePerMinute: n(1), MaxRisePerHour: n(2), OnBreak: RulesHold},
	} {
		got, err := DecodeRules(r.Encode())
		if err != nil {
			t.Fatalf("DecodeRules(%q): %v", r.Encode(), err)
		}
		if got.Encode() != r.Encode() {
			t.Fatalf("round trip of %q gave %q", r.Encode(), got.Encode())
		}
	}
	for _, bad := range []string{"max_score", "max_score=x", "speed=3"} {
		if _, err := DecodeRules(bad); err == nil {
			t.Errorf("DecodeRules(%q) accepted it", bad)
		}
	}
}

func TestSpecRules(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	if b := (Spec{Rules: &Rules{}}).Board(); b.Rules != nil {
		t.Fatalf("empty rules kept: %+v", b.Rules)
	}
	if b := (Spec{Rules: &Rules{OnBreak: RulesRefuse}}).Board(); b.Rules != nil {
		t.Fatalf("refuse without bounds kept: %+v", b.Rules)
	}
	b := Board{Rules: &Rules{MaxScore: n(7), OnBreak: RulesHold}}
	if got := SpecOf(&b).Board(); got.Rules.Encode() != "max_score=7 on_break=hold" {
		t.Fatalf("spec round trip: %q", got.Rules.Encode())
	}
}
