package board

import (
	"errors"
	"strings"
	"testing"
)

// TestAmong: list ranks follow the board's rank style over the global
// ranks of the listed members, in board order, tied members sharing one;
// members without a score come last, unranked, in the order asked.
func TestAmong(t *testing.T) {
	st := func(m string, rank, pos int) Standing {
		return Standing{Member: m, Ranked: rank > 0, Rank: rank, Position: pos}
	}
	// Global: a 1st, b and c tied 2nd (positions 1, 2), d 9th, e unranked.
	list := []Standing{st("d", 9, 8), st("e", 0, 0), st("c", 2, 2), st("a", 1, 0), st("b", 2, 1)}
	for style, want := range map[RankStyle]string{
		Competition: "a1 b2 c2 d4 e0",
		Dense:       "a1 b2 c2 d3 e0",
		Ordinal:     "a1 b2 c3 d4 e0",
	} {
		sts := append([]Standing(nil), list...)
		if style == Ordinal { // ordinal global ranks are never equal
			sts[2].Rank, sts[4].Rank = 3, 2
		}
		var got []string
		for _, l := range Among(&Board{RankStyle: style}, sts) {
			got = append(got, l.Member+itoa(l.ListRank))
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s: %s, want %s", style, g, want)
		}
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

// TestCheckMembers: repeats dropped in first order; empty, too many and
// bad ids refused, naming the member's place.
func TestCheckMembers(t *testing.T) {
	got, err := CheckMembers("members", []string{"b", "a", "b"}, 3)
	if err != nil || strings.Join(got, ",") != "b,a" {
		t.Fatalf("%v %v", got, err)
	}
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{nil, "at least one"},
		{[]string{"a", "b", "c", "d"}, "at most 3"},
		{[]string{"a", "bad\x00id"}, "member 2"},
	} {
		_, err := CheckMembers("members", c.ids, 3)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInvalidInput) && !errors.Is(err, ErrInvalidMember) {
			t.Errorf("%q: %v, want %q", c.ids, err, c.want)
		}
	}
}
