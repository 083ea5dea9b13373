package api

import (
	"encoding/base64"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/rows"
)

var (
	testCursors = newCursors(rows.NewMasker([]byte("0123456789abcdef0123456789abcdef")))
	cursorBoard = &board.Board{ID: "chess", Created: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	cursorWeek  = board.Period{Kind: board.Weekly, Key: "2026-W47"}
)

// invalidCursor reports whether err is the answer to a cursor refused.
func invalidCursor(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.Status == 400 && ae.Code == "invalid_cursor" && ae.Field == "after"
}

// TestCursorRoundTrip: a cursor gives back its mark, for the board and
// period it was made for; the same mark makes the same cursor; it says
// nothing readable of the member; an order key too long to carry becomes
// a position.
func TestCursorRoundTrip(t *testing.T) {
	for _, m := range []board.Mark{
		{Score: 7, Key: "7ff9f1|zz-dan", Position: 3},
		{Score: -0.5, Key: "m", Position: 0},
		{Score: math.Inf(1), Key: strings.Repeat("k", maxCursorKey), Position: 1_000_000},
		{Score: 90071992547409.01, Position: 12},
	} {
		raw := testCursors.seal(cursorBoard, cursorWeek, m)
		if raw != testCursors.seal(cursorBoard, cursorWeek, m) {
			t.Errorf("%+v: two cursors", m)
		}
		if len(raw) > maxCursorLen || strings.Contains(raw, "dan") {
			t.Errorf("%+v: %d characters: %s", m, len(raw), raw)
		}
		sealed, _ := base64.RawURLEncoding.DecodeString(raw)
		if strings.Contains(string(sealed), "zz-dan") || strings.Contains(string(sealed), "chess") {
			t.Errorf("%+v: the cursor shows what it holds", m)
		}
		got, err := testCursors.open(raw, cursorBoard, cursorWeek)
		if err != nil || got != m {
			t.Errorf("%+v: opened %+v %v", m, got, err)
		}
	}
	long := board.Mark{Score: 1, Key: strings.Repeat("k", maxCursorKey+1), Position: 9}
	if got, err := testCursors.open(testCursors.seal(cursorBoard, cursorWeek, long), cursorBoard, cursorWeek); err != nil || got != (board.Mark{Score: 1, Position: 9}) {
		t.Errorf("a long key: %+v %v", got, err)
	}
	// The longest cursor: the longest board id, a long period, the longest key.
	longest := &board.Board{ID: strings.Repeat("b", 64), Created: time.Now()}
	if raw := testCursors.seal(longest, board.Period{Kind: board.Daily, Key: "2026-11-22"}, board.Mark{Score: math.MaxFloat64, Key: long.Key, Position: math.MaxInt32}); len(raw) > maxCursorLen {
		t.Errorf("the longest cursor has %d characters, more than %d", len(raw), maxCursorLen)
	}
}

// TestCursorRefused: a cursor damaged, cut, made longer, of another
// version, key, board or period is a 400 invalid_cursor that says so.
func TestCursorRefused(t *testing.T) {
	m := board.Mark{Score: 7, Key: "7ff9f1|zz-dan", Position: 3}
	raw := testCursors.seal(cursorBoard, cursorWeek, m)
	sealed, _ := base64.RawURLEncoding.DecodeString(raw)
	reseal := func(change func([]byte) []byte) string {
		b := change(append([]byte(nil), sealed...))
		return base64.RawURLEncoding.EncodeToString(b)
	}
	remade := *cursorBoard
	remade.Created = remade.Created.Add(time.Microsecond)
	other := *cursorBoard
	other.ID = "go"
	for _, c := range []struct {
		name, raw string
		b         *board.Board
		p         board.Period
		says      string
	}{
		{"empty", "", cursorBoard, cursorWeek, "not a cursor"},
		{"not base64", "not a cursor!", cursorBoard, cursorWeek, "not a cursor"},
		{"too long", strings.Repeat("A", maxCursorLen+1), cursorBoard, cursorWeek, "longer than any cursor"},
		{"cut", raw[:len(raw)-4], cursorBoard, cursorWeek, "damaged"},
		{"a byte changed", reseal(func(b []byte) []byte { b[20] ^= 1; return b }), cursorBoard, cursorWeek, "damaged"},
		{"a byte added", reseal(func(b []byte) []byte { return append(b, 0) }), cursorBoard, cursorWeek, "damaged"},
		{"another version", reseal(func(b []byte) []byte { b[0] = cursorVersion - 1; return b }), cursorBoard, cursorWeek, "another version"},
		{"another server", newCursors(rows.NewMasker([]byte("another key, another server....."))).seal(cursorBoard, cursorWeek, m), cursorBoard, cursorWeek, "not made by this server"},
		{"another board", raw, &other, cursorWeek, "another board"},
		{"the board made again", raw, &remade, cursorWeek, "another board"},
		{"another period", raw, cursorBoard, board.Period{Kind: board.Weekly, Key: "2026-W48"}, "continues week:2026-W47, not week:2026-W48"},
	} {
		_, err := testCursors.open(c.raw, c.b, c.p)
		if !invalidCursor(err) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want invalid_cursor saying %q", c.name, err, c.says)
		}
	}
}

// FuzzCursor: whatever comes as a cursor is opened or refused as
// invalid_cursor, never a panic nor another error.
func FuzzCursor(f *testing.F) {
	raw := testCursors.seal(cursorBoard, cursorWeek, board.Mark{Score: 7, Key: "m", Position: 3})
	for _, seed := range []string{"", "A", raw, raw[:10], raw + "A", strings.Repeat("_", 100), "AQ", "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := testCursors.open(s, cursorBoard, cursorWeek)
		if err != nil && !invalidCursor(err) {
			t.Fatalf("%q: %v", s, err)
		}
		if err == nil && (math.IsNaN(m.Score) || m.Position < 0 || len(m.Key) > maxCursorKey) {
			t.Fatalf("%q: opened %+v", s, m)
		}
	})
}

// FuzzCursorContents: the sealed contents are read whole or refused, and
// what is read encodes back to the same bytes.
func FuzzCursorContents(f *testing.F) {
	f.Add(walkOf(cursorBoard, cursorWeek, board.Mark{Score: 7, Key: "7ff9f1|zz-dan", Position: 3}).encode())
	f.Add(walkOf(cursorBoard, cursorWeek, board.Mark{Score: math.Inf(-1)}).encode())
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeCursor(b)
		if err != nil {
			return
		}
		if again := c.encode(); string(again) != string(b) {
			t.Fatalf("%x read as %+v, which encodes as %x", b, c, again)
		}
	})
}

// TestCursorLengthHidesKey: a cursor is as long whatever its row's order
// key (the member id behind its tie-break prefix): on a board that hides
// names, the length of next would otherwise tell a reader without a key
// how long each hidden member's id is.
func TestCursorLengthHidesKey(t *testing.T) {
	want := -1
	for _, key := range []string{"", "a", "7ff9f1|zz-dan", "7ff9f1|" + strings.Repeat("x", 127), strings.Repeat("k", maxCursorKey), strings.Repeat("k", maxCursorKey+1)} {
		raw := testCursors.seal(cursorBoard, cursorWeek, board.Mark{Score: 7, Key: key, Position: 3})
		if want < 0 {
			want = len(raw)
		}
		if len(raw) != want {
			t.Errorf("a key of %d bytes makes a cursor of %d characters, another one of %d", len(key), len(raw), want)
		}
	}
}
