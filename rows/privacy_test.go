package rows

import (
	"strings"
	"testing"
	"time"

	"podium/board"
)

func entries(ids ...string) []board.Entry {
	out := make([]board.Entry, len(ids))
	for i, id := range ids {
		out[i] = board.Entry{Member: id, Name: strings.ToUpper(id[:1]) + id[1:] + " Liddell", Rank: i + 1, Position: i, Score: float64(100 - i), Key: "7ff0|" + id}
	}
	return out
}

// TestLensAppliesThePrivacyMode: a limited reader sees the first TopOnly
// places and their own row, names as initials or pseudonyms but their own,
// and totals counting only the places shown; a full reader sees all.
func TestLensAppliesThePrivacyMode(t *testing.T) {
	b := &board.Board{ID: "class", Names: board.Pseudonyms, TopOnly: 2, Created: time.Unix(1, 0)}
	m := NewMasker([]byte("0123456789abcdef0123456789abcdef"))
	es := entries("ann", "bob", "cat", "dan")
	full := Lens{Board: b, Sight: Sight{Full: true}, Masker: m}
	if got := full.Entries(es); len(got) != 4 || got[2].Member != "cat" || full.Total(4) != 4 || !full.Opens("dan") {
		t.Fatalf("a full reader: %+v", got)
	}
	shared := Lens{Board: b, Masker: m}
	got := shared.Entries(es)
	if len(got) != 2 || shared.Total(4) != 2 || shared.Opens("ann") || shared.Counts() {
		t.Fatalf("a shared reader: %+v, total %d", got, shared.Total(4))
	}
	for _, e := range got {
		if !e.Masked || !strings.HasPrefix(e.Member, "anon-") || !strings.HasPrefix(e.Name, "Player ") || strings.Contains(e.Name, "Liddell") || e.Key != "" {
			t.Errorf("a shared reader sees %+v", e)
		}
	}
	if es[0].Member != "ann" {
		t.Fatal("Entries changed the slice it was given")
	}
	me := Lens{Board: b, Sight: Sight{Me: "dan", OnlyMe: true}, Masker: m}
	got = me.Entries(es)
	if len(got) != 3 || got[2].Member != "dan" || got[2].Name != "Dan Liddell" || got[2].Masked || !got[0].Masked {
		t.Fatalf("dan's personal link: %+v", got)
	}
	if !me.Opens("dan") || me.Opens("ann") {
		t.Fatal("dan's personal link opens another member's page, or not their own")
	}
	// Stable per member within a board; another board (or the same id made
	// again) names them otherwise.
	id1, n1 := m.Alias(b, "ann", "Ann")
	id2, n2 := m.Alias(b, "ann", "Ann")
	again := *b
	again.Created = time.Unix(2, 0)
	id3, _ := m.Alias(&again, "ann", "Ann")
	if id1 != id2 || n1 != n2 || id1 == id3 || !strings.Contains(strings.ToLower(id1), strings.ToLower(strings.TrimPrefix(n1, "Player "))) {
		t.Fatalf("aliases %s %s / %s %s / %s", id1, n1, id2, n2, id3)
	}
	b.Names = board.Initials
	if _, n := m.Alias(b, "ann", "Ann Liddell"); n != "A. L." {
		t.Fatalf("initials %q", n)
	}
}

func TestInitials(t *testing.T) {
	for in, want := range map[string]string{"Alice Liddell": "A. L.", "bob_smith": "B. S.", "élodie": "É.", "42": "4.",
		"Anna Maria de la Cruz": "A. M. D.", "---": "?"} {
		if got := Initials(in); got != want {
			t.Errorf("Initials(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLensWithoutAPrivacyMode: a board without one shows everyone whole
// to every reader, and opens every member's page but to a personal link
// alone.
func TestLensWithoutAPrivacyMode(t *testing.T) {
	b := &board.Board{ID: "open", Names: board.FullNames}
	es := entries("ann", "bob")
	l := Lens{Board: b, Masker: NewMasker(nil)}
	if got := l.Entries(es); len(got) != 2 || got[1].Member != "bob" || got[1].Masked || !l.Opens("bob") || l.Total(2) != 2 {
		t.Fatalf("%+v", got)
	}
	if (Lens{Board: b, Sight: Sight{Me: "ann", OnlyMe: true}}).Opens("bob") {
		t.Fatal("a personal link alone opens another member's page")
	}
}
