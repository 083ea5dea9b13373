package live

import (
	"bytes"
	"testing"
)

// TestFramed: a payload framed once is a whole final text frame of its
// length, and payload gives it back.
func TestFramed(t *testing.T) {
	for _, n := range []int{0, 1, 125, 126, 127, 0xffff, 0x10000, 70_000} {
		p := bytes.Repeat([]byte{'x'}, n)
		f := framed(p)
		if f[0] != 0x81 {
			t.Errorf("%d bytes: first byte %#x, want a final text frame", n, f[0])
		}
		if size, ok := frameSize(f); !ok || size != len(f) {
			t.Errorf("%d bytes: a frame of %d bytes says %d, %v", n, len(f), size, ok)
		}
		if !bytes.Equal(payload(f), p) {
			t.Errorf("%d bytes: payload differs", n)
		}
	}
}
