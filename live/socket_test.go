//go:build unix

package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
)

// frame is a WebSocket frame of n payload bytes, unmasked as a server
// sends it, with its payload counting up so that a byte out of place shows.
func frame(n int) []byte {
	var f []byte
	switch {
	case n < 126:
		f = []byte{0x81, byte(n)}
	case n <= 0xffff:
		f = binary.BigEndian.AppendUint16([]byte{0x81, 126}, uint16(n))
	default:
		f = binary.BigEndian.AppendUint64([]byte{0x81, 127}, uint64(n))
	}
	for i := range n {
		f = append(f, byte(i))
	}
	return f
}

func TestFrameSize(t *testing.T) {
	masked := []byte{0x81, 0x80 | 5, 1, 2, 3, 4}
	for _, tc := range []struct {
		name string
		p    []byte
		size int
		ok   bool
	}{
		{"empty", nil, 0, false},
		{"one byte", []byte{0x81}, 0, false},
		{"no payload", frame(0)[:2], 2, true},
		{"short", frame(125)[:2], 127, true},
		{"16-bit length", frame(126)[:4], 130, true},
		{"16-bit length cut", frame(126)[:3], 0, false},
		{"64-bit length", frame(70_000)[:10], 70_010, true},
		{"64-bit length cut", frame(70_000)[:9], 0, false},
		{"masked", masked, 11, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			size, ok := frameSize(tc.p)
			if size != tc.size || ok != tc.ok {
				t.Fatalf("frameSize = %d, %v; want %d, %v", size, ok, tc.size, tc.ok)
			}
		})
	}
}

// socketPair is a socket on one end of a loopback TCP connection, and the
// other end, whose receive buffer is small (so that a peer that does not
// read fills it soon).
func socketPair(t *testing.T, timeout time.Duration) (*socket, *net.TCPConn, chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
	}}
	peer, err := d.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	s := newSocket(c, 4096, timeout)
	if s == nil {
		t.Fatal("no socket over a TCP connection")
	}
	woken := make(chan error, 1000)
	s.wake = func(err error) { woken <- err }
	t.Cleanup(func() { c.Close(); peer.Close() })
	return s, peer.(*net.TCPConn), woken
}

// TestSocketGathersFrames: frames written through the library's small
// buffer, whole or in pieces cut anywhere (inside the header too), reach
// the peer whole and in order.
func TestSocketGathersFrames(t *testing.T) {
	s, peer, woken := socketPair(t, patience)
	// Each frame goes through the library's buffer, then straight to the
	// socket in two pieces, cut at each of its first bytes.
	type piece struct {
		p        []byte
		buffered bool
	}
	var pieces []piece
	var want []byte
	for _, n := range []int{0, 5, writeBuffer - 2, writeBuffer - 1, writeBuffer, 100, 125, 126, 1000, 0xffff, 0x10000} {
		f := frame(n)
		want = append(want, f...)
		pieces = append(pieces, piece{f, true})
		for cut := range min(len(f), 16) {
			want = append(want, f...)
			pieces = append(pieces, piece{f[:cut], false}, piece{f[cut:], false})
		}
	}
	two := append(frame(3), frame(300)...) // two frames and a half in one piece
	want = append(append(want, two...), frame(10)...)
	pieces = append(pieces, piece{append(two, frame(10)[:5]...), false}, piece{frame(10)[5:], false})

	read := make(chan []byte, 1)
	go func() {
		got := make([]byte, len(want))
		_ = peer.SetReadDeadline(time.Now().Add(patience))
		n, _ := io.ReadFull(peer, got)
		read <- got[:n]
	}()
	w := bufio.NewWriterSize(s, writeBuffer) // as the library writes
	for _, p := range pieces {
		if !p.buffered {
			if _, err := s.Write(p.p); err != nil {
				t.Fatal(err)
			}
		} else {
			if _, err := w.Write(p.p); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		if s.park() { // as the hub does: no more until the kernel has taken it
			if err := <-woken; err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := <-read; !bytes.Equal(got, want) {
		t.Fatalf("the peer read %d bytes, other than the %d written", len(got), len(want))
	}
}

// TestSocketWriteAllocatesNothing: a frame that the kernel takes costs no
// allocation: the hub's, written whole, and the library's, which come whole
// out of its buffer (a pong), or in two pieces (a data frame, which the hub
// does not have it write).
func TestSocketWriteAllocatesNothing(t *testing.T) {
	s, peer, _ := socketPair(t, patience)
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	for _, tc := range []struct {
		name string
		f    []byte
		hub  bool
		cut  int // the library's first piece, if it comes in two
	}{
		{"the hub's", framed(make([]byte, 1000)), true, 0},
		{"a pong", frame(10), false, 0},
		{"a data frame in pieces", frame(1000), false, maxHeader},
	} {
		allocs := testing.AllocsPerRun(200, func() {
			var err error
			switch {
			case tc.hub:
				err = s.writeFrame(tc.f)
			case tc.cut == 0:
				_, err = s.Write(tc.f)
			default:
				if _, err = s.Write(tc.f[:tc.cut]); err == nil {
					_, err = s.Write(tc.f[tc.cut:])
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per frame", tc.name, allocs)
		}
	}
}

// TestSocketNeverWaits: writes to a peer that does not read return at
// once, far past what the kernel holds; the socket keeps the rest, and
// once the peer has read it all, in order, it holds nothing more.
func TestSocketNeverWaits(t *testing.T) {
	s, peer, woken := socketPair(t, patience)
	var want []byte
	wrote := make(chan error, 1)
	go func() {
		for len(want) < 256<<10 {
			f := frame(4000)
			want = append(want, f...)
			if _, err := s.Write(f); err != nil {
				wrote <- err
				return
			}
		}
		wrote <- nil
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(patience):
		t.Fatal("a write waited for a peer that does not read")
	}
	if !s.park() {
		t.Fatal("the kernel took 256 KiB from a peer that does not read")
	}
	got := make([]byte, len(want))
	_ = peer.SetReadDeadline(time.Now().Add(patience))
	if _, err := io.ReadFull(peer, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the peer read other bytes than were written")
	}
	eventually(t, "the socket to hold nothing", func() bool { return !s.park() })
	for len(woken) > 0 {
		if err := <-woken; err != nil {
			t.Fatalf("woken with %v, want nil: everything was read", err)
		}
	}
}

// TestSocketDropsPeerThatStopsReading: what the kernel does not take must
// go within the timeout; else the socket ends with a deadline error.
func TestSocketDropsPeerThatStopsReading(t *testing.T) {
	s, _, woken := socketPair(t, 100*time.Millisecond)
	for {
		if _, err := s.Write(frame(4000)); err != nil {
			t.Fatal(err)
		}
		if !s.park() {
			continue
		}
		// The kernel may yet take what it kept (its buffers grow); the
		// writer then goes on, until they are full.
		select {
		case err := <-woken:
			if err == nil {
				continue
			}
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("woken with %v, want a deadline error", err)
			}
		case <-time.After(patience):
			t.Fatal("a peer that does not read was never dropped")
		}
		break
	}
	if _, err := s.Write(frame(1)); err == nil {
		t.Fatal("a write after the socket ended succeeded")
	}
}

// TestSocketBoundsWhatItKeeps: a peer that makes the server write (pongs)
// without reading cannot make the socket keep more than maxPending.
func TestSocketBoundsWhatItKeeps(t *testing.T) {
	s, _, _ := socketPair(t, patience)
	for kept := 0; kept <= 2*maxPending; kept += 4000 {
		if _, err := s.Write(frame(4000)); err != nil {
			if !errors.Is(err, errTooFarBehind) {
				t.Fatalf("ended with %v, want errTooFarBehind", err)
			}
			return
		}
	}
	t.Fatalf("kept %d bytes for a peer that does not read", 2*maxPending)
}

// dialSlow opens a live socket whose receive buffer is small, so that the
// server's writes soon wait on it while it does not read.
func (f *liveFixture) dialSlow(query string) *wsClient {
	f.t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
	}}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	opts := &websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}}
	c, _, err := websocket.Dial(ctx, strings.Replace(f.http.URL, "http", "ws", 1)+"/?"+query, opts)
	if err != nil {
		f.t.Fatal(err)
	}
	c.SetReadLimit(1 << 20)
	f.t.Cleanup(func() { c.CloseNow() })
	return &wsClient{t: f.t, c: c}
}

// readAll reads w's frames until its socket ends, keeping its state; top
// is the first row's member of the last state read.
func readAll(w *wsClient) (top func() string) {
	var mu sync.Mutex
	state := ""
	go func() {
		var s Snapshot
		for {
			_, data, err := w.c.Read(context.Background())
			if err != nil {
				return
			}
			var head struct{ Type string }
			_ = json.Unmarshal(data, &head)
			switch head.Type {
			case "snapshot":
				s = Snapshot{}
				_ = json.Unmarshal(data, &s)
			case "diff":
				var d Delta
				_ = json.Unmarshal(data, &d)
				s = Apply(&s, d)
			}
			mu.Lock()
			if len(s.Rows) > 0 {
				state = s.Rows[0].Member
			}
			mu.Unlock()
		}
	}()
	return func() string { mu.Lock(); defer mu.Unlock(); return state }
}

// climber writes ever higher scores of new members with long ids to the
// board's all-time set: every write changes its top, in a frame of a few
// KiB.
func (f *liveFixture) climber(id string) func() string {
	key := redisstore.ZSetKey(id, board.Period{Kind: board.AllTime})
	n := 0
	return func() string {
		n++
		m := fmt.Sprintf("%03d-%s", n, strings.Repeat("m", 120))
		if err := f.rdb.ZAdd(context.Background(), key, redis.Z{Member: m, Score: float64(n)}).Err(); err != nil {
			f.t.Fatal(err)
		}
		return m
	}
}
