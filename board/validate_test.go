package board

import (
	"errors"
	"slices"
	"testing"
)

// TestValidate: a normalized definition passes; each broken field is named
// by a FieldError wrapping ErrInvalidBoard, and every problem is reported
// at once. No Redis: these are the domain's rules alone.
func TestValidate(t *testing.T) {
	good := func() Board {
		b := Board{ID: "chess", Title: "Chess club", Periods: []Kind{Weekly, AllTime}, TimeZone: "Europe/Oslo"}
		b.Normalize()
		return b
	}
	b := good()
	if err := b.Validate(); err != nil {
		t.Fatalf("a good board: %v", err)
	}
	if b.Location().String() != "Europe/Oslo" {
		t.Fatalf("Validate keeps the zone: %v", b.Location())
	}
	cases := []struct {
		field string
		bad   func(*Board)
	}{
		{"id", func(b *Board) { b.ID = "Chess Club" }},
		{"id", func(b *Board) { b.ID = "" }},
		{"title", func(b *Board) { b.Title = "a\x00b" }},
		{"title", func(b *Board) { b.Title = "abc\u202edef" }},
		{"format.type", func(b *Board) { b.Format.Type = "money" }},
		{"format.decimals", func(b *Board) { b.Format.Decimals = 2 }},
		{"format.suffix", func(b *Board) { b.Format.Suffix = "a very long suffix" }},
		{"order", func(b *Board) { b.Order = "sideways" }},
		{"periods", func(b *Board) { b.Periods = append(b.Periods, "fortnight") }},
		{"default_period", func(b *Board) { b.DefaultPeriod = Daily }},
		{"time_zone", func(b *Board) { b.TimeZone = "Mars/Base" }},
		{"tie_break", func(b *Board) { b.TieBreak = "coin" }},
		{"rank_style", func(b *Board) { b.RankStyle = "olympic" }},
		{"fields[1].name", func(b *Board) { b.Fields = []Field{{Name: "kills"}, {Name: "kills"}} }},
		{"teams", func(b *Board) { b.Teams = "max" }},
		{"window", func(b *Board) { b.Window = "avg" }},
		{"cap", func(b *Board) { b.Cap = -1 }},
		{"retention", func(b *Board) { b.Retention = MaxRetention + 1 }},
		{"names", func(b *Board) { b.Names = "nicknames" }},
		{"top_only", func(b *Board) { b.TopOnly = -1 }},
		{"top_only", func(b *Board) { b.TopOnly = MaxTopOnly + 1 }},
	}
	for _, tc := range cases {
		b := good()
		tc.bad(&b)
		err := b.Validate()
		if !errors.Is(err, ErrInvalidBoard) {
			t.Errorf("%s: %v, want ErrInvalidBoard", tc.field, err)
			continue
		}
		var fields []string
		for _, fe := range FieldErrors(err) {
			fields = append(fields, fe.Field)
		}
		if !slices.Contains(fields, tc.field) {
			t.Errorf("%s: the error names %v", tc.field, fields)
		}
	}
	all := good()
	all.ID, all.Order, all.Cap = "", "sideways", -1
	if n := len(FieldErrors(all.Validate())); n != 3 {
		t.Errorf("three problems reported as %d", n)
	}
}
