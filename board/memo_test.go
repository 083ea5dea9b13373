package board

import (
	"errors"
	"strconv"
	"testing"
)

// TestMemo: a Memo makes a value once per key and hands the same bytes
// back; a failed make keeps nothing; a nil Memo makes every time; it keeps
// at most memoKeys keys, making the rest every time.
func TestMemo(t *testing.T) {
	made := 0
	mk := func(v string) func() ([]byte, error) {
		return func() ([]byte, error) { made++; return []byte(v), nil }
	}
	var nilMemo *Memo
	for range 2 {
		if v, _ := nilMemo.Of("k", mk("x")); string(v) != "x" {
			t.Fatalf("nil memo: %q", v)
		}
	}
	if made != 2 {
		t.Fatalf("nil memo made %d values for 2 reads, want 2", made)
	}
	m, made := new(Memo), 0
	if _, err := m.Of("k", func() ([]byte, error) { return nil, errors.New("no") }); err == nil {
		t.Fatal("a failed make answered no error")
	}
	for _, want := range []string{"a", "a"} {
		if v, err := m.Of("k", mk(want)); err != nil || string(v) != want {
			t.Fatalf("Of: %q, %v", v, err)
		}
	}
	if made != 1 {
		t.Fatalf("made %d values for one key read twice after a failure, want 1", made)
	}
	for i := range memoKeys + 2 {
		m.Of(strconv.Itoa(i), mk("v"))
		m.Of(strconv.Itoa(i), mk("v"))
	}
	if len(m.m) != memoKeys {
		t.Fatalf("memo keeps %d keys, want at most %d", len(m.m), memoKeys)
	}
}
