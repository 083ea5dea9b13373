package live

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// Sockets under the hub and the WebSocket library: slow and lagging
// clients, the close handshake, and writers that never wait.

// TestSocketThatStopsReadingIsDropped: a live socket whose client stops
// reading is dropped once a frame has waited WriteTimeout for the kernel to
// take it, counted as slow; the other clients of its view go on getting
// every change meanwhile.
func TestSocketThatStopsReadingIsDropped(t *testing.T) {
	f := newLiveFixture(t, Options{WriteTimeout: 300 * time.Millisecond, SendBuffer: 4096, QueueSize: 4})
	f.board("stuck", "ann", 1)
	reader := f.dial("board=stuck&period=all")
	reader.until("a snapshot", func(s Snapshot) bool { return s.Total == 1 })
	f.dialSlow("board=stuck&period=all") // never reads
	top := readAll(reader)
	climb := f.climber("stuck")
	deadline := time.Now().Add(patience)
	for f.hub.Stats().SlowDisconnects == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the client that does not read was never dropped: %+v", f.hub.Stats())
		}
		climb()
		time.Sleep(5 * time.Millisecond) // a change every few ticks' frames
	}
	last := climb()
	eventually(t, "the reading client to see the last change", func() bool { return top() == last })
	if st := f.hub.Stats(); st.Clients != 1 || st.SlowDisconnects != 1 {
		t.Fatalf("clients %d, dropped %d: want the reading one kept and the other dropped as slow", st.Clients, st.SlowDisconnects)
	}
}

// TestSocketThatLagsGetsASnapshot: a live socket whose client stops
// reading for a while, long enough that its frames no longer fit its queue,
// gets a snapshot of the latest state instead of the backlog once it reads
// again.
func TestSocketThatLagsGetsASnapshot(t *testing.T) {
	f := newLiveFixture(t, Options{WriteTimeout: patience, SendBuffer: 4096, QueueSize: 4})
	f.board("lag", "ann", 1)
	other := f.dial("board=lag&period=all") // keeps the view from waiting for the lagging one
	other.until("a snapshot", func(s Snapshot) bool { return s.Total == 1 })
	readAll(other)
	lagging := f.dialSlow("board=lag&period=all")
	lagging.until("a snapshot", func(s Snapshot) bool { return s.Total == 1 })
	climb := f.climber("lag")
	deadline := time.Now().Add(patience)
	for f.hub.Stats().Dropped == 0 { // it no longer reads: its frames pile up, then are replaced
		if time.Now().After(deadline) {
			t.Fatalf("the lagging client's queue never overflowed: %+v", f.hub.Stats())
		}
		climb()
		time.Sleep(5 * time.Millisecond)
	}
	last := climb()
	lagging.until("the last change", func(s Snapshot) bool { return len(s.Rows) > 0 && s.Rows[0].Member == last })
	if lagging.snapshots < 2 {
		t.Fatalf("%d snapshots: the lagging client caught up through its backlog, not a fresh snapshot", lagging.snapshots)
	}
	if st := f.hub.Stats(); st.Clients != 2 || st.SlowDisconnects != 0 {
		t.Fatalf("stats %+v: the lagging client was dropped", st)
	}
}

// TestSocketsUnderTheLibrary: every live socket on a TCP connection writes
// through a socket, with the library's buffers small.
func TestSocketsUnderTheLibrary(t *testing.T) {
	f := newLiveFixture(t, Options{})
	f.board("small", "ann", 1)
	for range 3 {
		f.dial("board=small&period=all").until("a snapshot", func(s Snapshot) bool { return s.Total == 1 })
	}
	f.hub.mu.Lock()
	defer f.hub.mu.Unlock()
	for _, v := range f.hub.views {
		for c := range v.clients {
			if c.sock == nil {
				t.Fatal("a client over TCP writes without a socket")
			}
		}
	}
}

// TestNoFrameAfterClose: once the library has written its close frame, the
// hub's frames are refused: nothing may follow a close frame.
func TestNoFrameAfterClose(t *testing.T) {
	s, peer, _ := socketPair(t, patience)
	if err := s.writeFrame(framed([]byte("before"))); err != nil {
		t.Fatal(err)
	}
	closing := []byte{0x88, 2, 0x03, 0xe9} // 1001
	if _, err := s.Write(closing); err != nil {
		t.Fatal(err)
	}
	if err := s.writeFrame(framed([]byte("after"))); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a frame after the close frame: %v, want net.ErrClosed", err)
	}
	want := append(framed([]byte("before")), closing...)
	got := make([]byte, len(want))
	_ = peer.SetReadDeadline(time.Now().Add(patience))
	if _, err := io.ReadFull(peer, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the peer read %q, %v; want %q", got, err, want)
	}
}

// TestPumpNeverWaitsForAnEnd: a frame that fails because its client is
// ending (the library has sent its close frame, and the close handshake is
// under way) does not hold the writer, which writes other clients too.
func TestPumpNeverWaitsForAnEnd(t *testing.T) {
	h, _ := newTestHub(Options{})
	s, _, _ := socketPair(t, patience)
	c := newClient(&fakeConn{})
	c.sock = s
	if _, err := s.Write([]byte{0x88, 2, 0x03, 0xf0}); err != nil { // the close frame of a 1008
		t.Fatal(err)
	}
	handshake := make(chan struct{})
	ending := make(chan struct{})
	go c.endOnce.Do(func() { close(ending); <-handshake }) // an end under way, waiting for the browser
	<-ending
	c.queue = [][]byte{framed([]byte(`{"type":"diff"}`))}
	c.busy.Store(true)
	pumped := make(chan struct{})
	go func() { h.pump(c); close(pumped) }()
	select {
	case <-pumped:
	case <-time.After(patience):
		t.Fatal("the writer waited for a client's close handshake")
	}
	close(handshake)
}
