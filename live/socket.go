package live

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// socket is the TCP connection of one live client, under the WebSocket
// library. The hub writes its frames, encoded and framed once per view
// (wire.go), straight to it (writeFrame), as gorilla/websocket's
// PreparedMessage does; the library writes its own (pongs, pings, the close
// handshake) through its buffer into Write, in pieces that the socket
// gathers. Either way a frame goes to the kernel in one system call that
// never waits. A frame the kernel does not take whole (the client reads
// slowly) is kept, and a goroutine of the socket's own writes it, bounded
// by the write timeout, while later frames queue behind it: the hub's
// writers never wait for a browser, so one goroutine can write a whole
// view's frames, and an idle socket holds no buffer of its own.
type socket struct {
	conn    *net.TCPConn
	raw     syscall.RawConn
	timeout time.Duration // the longest a frame the kernel did not take may wait
	// wake is called by the drainer: with nil once everything it held is
	// written, if a writer parked meanwhile; with the error that ended the
	// socket otherwise (always).
	wake func(error)
	try  func(fd uintptr) bool // tryWrite, bound once (no closure per write)

	mu       sync.Mutex
	part     []byte // the start of a frame whose rest has not come yet
	head     [maxHeader]byte
	pending  []byte // what the kernel has not taken yet: the drainer's
	draining bool
	parked   bool
	closed   bool // the library wrote a close frame: no frame may follow
	err      error
	// the current non-blocking write (under mu): its pieces and results
	a, b  []byte
	n     int
	errno error
}

const (
	// writeBuffer is the WebSocket library's write buffer, which holds any
	// control frame whole (a header and at most 125 bytes): the library's
	// frames then come in one piece each, and never stand between the
	// pieces of another when the hub writes one of its own.
	writeBuffer = 128
	// readBuffer is its read buffer: nothing but control frames (pongs, the
	// close handshake) is read from a live client.
	readBuffer = 128
	// maxHeader is a WebSocket frame header's longest form.
	maxHeader = 14
	// maxPending bounds what a socket keeps for a client that does not
	// read: its last frame, and pongs to a client that pings without
	// reading; past it the socket ends.
	maxPending = 1 << 20
)

// errTooFarBehind ends a socket whose client sends pings it does not read
// the answers to.
var errTooFarBehind = errors.New("too much unread: the client does not read")

// newSocket makes c a socket with a kernel send buffer of sendBuffer bytes,
// or returns nil where it cannot write without waiting (then the client's
// writes go the library's ordinary way).
func newSocket(c net.Conn, sendBuffer int, timeout time.Duration) *socket {
	tc, ok := c.(*net.TCPConn)
	if !ok || !nonBlockingWrites {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	// A reader that stops reading holds at most this much in the kernel
	// (which doubles the figure) before the drainer waits and the write
	// timeout drops it; Linux's own tuning would let it grow to megabytes.
	_ = tc.SetWriteBuffer(sendBuffer)
	s := &socket{conn: tc, raw: raw, timeout: timeout}
	s.try = s.tryWrite
	s.part = s.head[:0]
	return s
}

// Write gathers p, a piece of the library's frames, and writes each frame
// once it is whole. It never waits: what the kernel does not take is
// written by the drainer.
func (s *socket) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	n := len(p)
	for len(p) > 0 {
		if len(s.part) == 0 {
			if size, ok := frameSize(p); ok && size <= len(p) {
				if err := s.send(p[:size], nil); err != nil {
					return 0, err
				}
				p = p[size:]
				continue
			}
			s.part = append(s.part, p...)
			break
		}
		size, ok := frameSize(s.part)
		if !ok { // the header itself came cut: take the rest of it first
			k := min(len(p), maxHeader-len(s.part))
			s.part, p = append(s.part, p[:k]...), p[k:]
			continue
		}
		rest := size - len(s.part)
		if len(p) < rest {
			s.part = append(s.part, p...)
			break
		}
		if err := s.send(s.part, p[:rest]); err != nil {
			return 0, err
		}
		s.part, p = s.head[:0], p[rest:]
	}
	return n, nil
}

// writeFrame writes f, a whole frame of the hub's, without waiting.
func (s *socket) writeFrame(f []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.part) > 0 && s.err == nil {
		// The library is between the pieces of a frame of its own (it
		// never is with writeBuffer's room), and does not wait: let it end.
		s.mu.Unlock()
		runtime.Gosched()
		s.mu.Lock()
	}
	switch {
	case s.err != nil:
		return s.err
	case s.closed:
		return net.ErrClosed
	}
	return s.send(f, nil)
}

// send writes a frame, given in two pieces (b may be empty), without
// waiting; whatever the kernel does not take goes to the drainer (under mu).
func (s *socket) send(a, b []byte) error {
	if a[0]&0x0f == opClose {
		s.closed = true
	}
	if s.draining {
		return s.keep(a, b)
	}
	s.a, s.b = a, b
	err := s.raw.Write(s.try)
	s.a, s.b = nil, nil
	if err == nil {
		err = s.errno
	}
	n := s.n
	switch {
	case errors.Is(err, syscall.EAGAIN):
		n = 0
	case err != nil:
		s.err = fmt.Errorf("live: write: %w", err)
		return s.err
	}
	if n == len(a)+len(b) {
		return nil
	}
	if n < len(a) {
		a = a[n:]
	} else {
		a, b = nil, b[n-len(a):]
	}
	if err := s.keep(a, b); err != nil {
		return err
	}
	s.draining = true
	go s.drain()
	return nil
}

// keep adds a and b to what the drainer writes (under mu).
func (s *socket) keep(a, b []byte) error {
	if len(s.pending)+len(a)+len(b) > maxPending {
		s.err = errTooFarBehind
		return s.err
	}
	s.pending = append(append(s.pending, a...), b...)
	return nil
}

// drain writes what the kernel did not take, waiting for it at most the
// write timeout, then wakes a writer that parked meanwhile. A socket it
// cannot finish in time ends, and so does its client (wake).
func (s *socket) drain() {
	deadline := time.Now().Add(s.timeout)
	err := s.conn.SetWriteDeadline(deadline)
	for err == nil {
		s.mu.Lock()
		buf := s.pending
		s.pending = nil
		if len(buf) == 0 {
			// The deadline goes before anything else may write, which
			// would find it expired some time later.
			if err = s.conn.SetWriteDeadline(time.Time{}); err != nil {
				s.mu.Unlock()
				break
			}
			s.draining = false
			parked := s.parked
			s.parked = false
			s.mu.Unlock()
			if parked {
				s.wake(nil)
			}
			return
		}
		s.mu.Unlock()
		_, err = s.conn.Write(buf)
	}
	s.mu.Lock()
	s.err = fmt.Errorf("live: write: %w", err)
	s.pending, s.draining, s.parked = nil, false, false
	s.mu.Unlock()
	s.wake(err) // first: the client ends for this, not for the closed connection
	_ = s.conn.Close()
}

// park reports whether the kernel has yet to take what the socket was
// given; if so, the drainer wakes the caller (wake(nil)) once it has.
func (s *socket) park() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		s.parked = true
	}
	return s.draining
}

// hijacker gives the WebSocket library a live client's connection with
// small buffers, and the socket the library's writes go through.
type hijacker struct {
	http.ResponseWriter
	sendBuffer int
	timeout    time.Duration
	sock       *socket // set by Hijack, when the connection has one
}

// Unwrap lets http.ResponseController reach the server's writer.
func (h *hijacker) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// Hijack takes the connection over, as the library asks, and replaces the
// server's 4 KiB read and write buffers: a live client's reads are control
// frames, and its writes go through the socket. A connection that is no
// TCP one (or a client that already sent more than its request) keeps the
// server's.
func (h *hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return c, rw, err
	}
	if rw.Reader.Buffered() == 0 && rw.Writer.Buffered() == 0 {
		h.sock = newSocket(c, h.sendBuffer, h.timeout)
	}
	if h.sock == nil {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetWriteBuffer(h.sendBuffer)
		}
		return c, rw, nil
	}
	return c, bufio.NewReadWriter(bufio.NewReaderSize(c, readBuffer), bufio.NewWriterSize(h.sock, writeBuffer)), nil
}
