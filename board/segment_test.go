package board

import (
	"errors"
	"strings"
	"testing"
)

func TestSegmentRules(t *testing.T) {
	base := func(segs ...string) Board {
		b := Board{ID: "b", Title: "B", Segments: segs}
		b.Normalize()
		return b
	}
	for _, tc := range []struct {
		name string
		segs []string
		ok   bool
	}{
		{"none", nil, true},
		{"four", []string{"country", "class", "division", "a1_b"}, true},
		{"five", []string{"a", "b", "c", "d", "e"}, false},
		{"upper case", []string{"Country"}, false},
		{"leading digit", []string{"1st"}, false},
		{"seventeen letters", []string{strings.Repeat("a", 17)}, false},
		{"sixteen letters", []string{strings.Repeat("a", 16)}, true},
		{"twice", []string{"club", "club"}, false},
		{"colon", []string{"a:b"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base(tc.segs...)
			err := b.Validate()
			if (err == nil) != tc.ok {
				t.Fatalf("Validate = %v, want ok %v", err, tc.ok)
			}
			if err != nil && FieldErrors(err)[0].Field != "segments" {
				t.Fatalf("field %q", FieldErrors(err)[0].Field)
			}
		})
	}
	b := base("country", "class")
	for _, tc := range []struct {
		in   string
		want Segment
		ok   bool
	}{
		{"country:NO", Segment{"country", "NO"}, true},
		{"country:Côte d'Ivoire", Segment{"country", "Côte d'Ivoire"}, true},
		{"class:a:b", Segment{"class", "a:b"}, true},
		{"", Segment{}, true},
		{"planet:Mars", Segment{}, false},
		{"country", Segment{}, false},
		{"country:", Segment{}, false},
		{"country: NO", Segment{}, false},
		{"country:N\x00O", Segment{}, false},
		{"country:" + strings.Repeat("x", 33), Segment{}, false},
		{"country:\u200bNO", Segment{}, false},
	} {
		got, err := ParseSegment(&b, tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSegment(%q) = %v, %v", tc.in, got, err)
		}
		if err != nil && !errors.Is(err, ErrInvalidInput) {
			t.Errorf("ParseSegment(%q): %v is not invalid input", tc.in, err)
		}
	}
	if err := CheckSegments(&b, map[string]string{"country": "", "class": "A"}); err != nil {
		t.Errorf("leave one, set another: %v", err)
	}
	if err := CheckSegments(&b, map[string]string{"planet": ""}); err == nil {
		t.Error("an unknown attribute taken")
	}
	sub := Submission{Member: "ann", Score: 1, Segments: map[string]string{"planet": "x"}}
	if err := CheckSubmission(&b, &sub); err == nil {
		t.Error("a submission with an unknown attribute taken")
	}
}
