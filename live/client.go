package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// conn is what a client writes to: a WebSocket, or a fake in tests.
type conn interface {
	Write(ctx context.Context, typ websocket.MessageType, p []byte) error
	Ping(ctx context.Context) error
	Close(code websocket.StatusCode, reason string) error
	CloseNow() error
}

// client is one browser tab. The hub queues frames without blocking, and
// writes them: through its socket, which never waits, from the few
// goroutines that write a tick's frames (send); over any other connection
// (tests' fakes), from a goroutine of the client's own that exists only
// while there is something to write. An idle socket costs no goroutine of
// its own besides the library's reader, which answers pings and the close
// handshake.
type client struct {
	conn    conn
	sock    *socket // nil: writes may wait, and a context bounds each
	release func()  // undoes admit; nil for a client that was not admitted
	view    *view   // set and read under the hub's lock
	feed    *feed   // the board's recent changes, if it follows them (hub's lock)
	pinger  *time.Timer
	guard   func(context.Context) error // re-checks the socket's access (Serve's guard, checkGuards)

	mu    sync.Mutex
	queue [][]byte // frames waiting (framed: wire.go), at most Options.QueueSize
	ended bool
	// busy is set while a frame is queued or being written: a view whose
	// clients are mostly busy holds its next frame (see Hub.behind).
	busy atomic.Bool

	endOnce sync.Once
	done    chan struct{} // closed when the client has ended
	err     error         // why it ended; nil when the server shut down
}

func newClient(c conn) *client {
	return &client{conn: c, done: make(chan struct{})}
}

// errNoPong ends a client that did not answer a ping in time.
var errNoPong = errors.New("no answer to a ping")

// errGone ends a client whose browser closed the socket or went away.
var errGone = errors.New("the client went away")

// startPings pings the client every PingInterval, from a timer: the
// goroutine exists only while a ping waits for its pong. A client that does
// not answer within PongTimeout is gone without a word, or has stopped
// reading, and is ended.
func (h *Hub) startPings(c *client) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.pinger = time.AfterFunc(h.opts.PingInterval, func() {
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.PongTimeout)
		err := c.conn.Ping(ctx)
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			h.end(c, fmt.Errorf("%w in %v", errNoPong, h.opts.PongTimeout))
		case err != nil:
			h.end(c, err)
		default:
			c.mu.Lock()
			if !c.ended {
				c.pinger.Reset(h.opts.PingInterval)
			}
			c.mu.Unlock()
		}
	})
}

// end ends a client, once: it leaves its view, its pings stop and its socket
// closes, with 1001 and the close handshake when the server shuts down (err
// nil), at once otherwise. It may block for the handshake.
func (h *Hub) end(c *client, err error) {
	c.endOnce.Do(func() {
		c.mu.Lock()
		c.ended = true // first: nothing starts for it from now on (startGuard)
		c.queue = nil
		if c.pinger != nil {
			c.pinger.Stop()
		}
		c.mu.Unlock()
		h.detach(c)
		switch {
		case err == nil:
			_ = c.conn.Close(websocket.StatusGoingAway, "server shutting down")
		case errors.Is(err, errRevoked):
			_ = c.conn.Close(websocket.StatusPolicyViolation, truncate(err.Error(), 120))
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, errNoPong):
			h.stats.slowDisconnects.Add(1)
			board := ""
			h.mu.Lock()
			if v := c.view; v != nil {
				board = v.spec.Board
			}
			h.mu.Unlock()
			h.log.Info("live: dropped a client that stopped reading", slog.String("board", board), slog.Any("error", err))
			_ = c.conn.CloseNow()
		default:
			_ = c.conn.CloseNow()
		}
		c.err = err
		close(c.done)
		if c.release != nil {
			c.release()
		}
	})
}

// connKey holds, in a request's context, the network connection it came on.
type connKey struct{}

// ConnContext remembers each connection in its requests' contexts. Serve
// no longer needs it (it takes the connection from the upgrade); servers
// that set it as their ConnContext go on working.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// Serve upgrades a request to a WebSocket and attaches it to the view (and,
// with Spec.Recent, to the board's recent changes); frames then go to it
// until either side goes away, and Serve returns at once. origins are the extra origins allowed to connect
// (full origins such as https://blog.example.com); "*" allows any. addr is
// the client's address: each may hold Options.PerAddr sockets at once.
// guard, when set, is asked every Options.GuardInterval whether the request
// may still read the board; an error ends the socket with 1008.
func (h *Hub) Serve(w http.ResponseWriter, r *http.Request, spec Spec, origins []string, addr string, guard func(context.Context) error) {
	release, err := h.admit(addrKey(addr))
	if err != nil {
		h.log.Debug("live: refused websocket", slog.String("addr", addr), slog.Any("error", err)) // counted in Stats.Refused
		status := http.StatusTooManyRequests
		if errors.Is(err, errClosing) {
			status = http.StatusServiceUnavailable
		}
		http.Error(w, "live: "+err.Error(), status)
		return
	}
	admitted := false // until the client owns the release
	defer func() {
		if !admitted {
			release()
		}
	}()
	opts := &websocket.AcceptOptions{}
	if r.Header.Get("Origin") == "null" {
		// Sandboxed frames and local files send "null": no site anyone can
		// name, so "*" does not cover it; an operator may list "null".
		if !slices.Contains(origins, "null") {
			h.log.Info("live: refused websocket from Origin null")
			http.Error(w, "live: a page without an origin (Origin: null) may not connect; list null in EMBED_ORIGINS to allow it", http.StatusForbidden)
			return
		}
		opts.InsecureSkipVerify = true
	}
	for _, o := range origins {
		if o == "*" {
			opts.InsecureSkipVerify = true // public, read-only data: any site may read it
		}
	}
	if !opts.InsecureSkipVerify {
		opts.OriginPatterns = origins
	}
	// The connection, once upgraded, gets small buffers and a socket that
	// never waits (hijacker); its kernel send buffer is bounded there. A
	// refused one goes on serving HTTP as it was.
	hj := &hijacker{ResponseWriter: w, sendBuffer: h.opts.SendBuffer, timeout: h.opts.WriteTimeout}
	ws, err := websocket.Accept(hj, r, opts)
	if err != nil {
		h.log.Info("live: refused websocket", slog.String("origin", r.Header.Get("Origin")), slog.Any("error", err))
		return // Accept has answered (403 for a foreign origin)
	}
	c := newClient(ws)
	if hj.sock != nil {
		c.sock = hj.sock
		c.sock.wake = func(err error) { h.woken(c, err) }
	}
	h.stats.connections.Add(1)
	// From attach on, the client may end at any time, and end releases it.
	// The request's context serves attach only: the handler returns once
	// the socket is set up, and the request goes with it.
	c.release, admitted = release, true
	if err := h.attach(r.Context(), c, spec); err != nil {
		code := websocket.StatusPolicyViolation
		if errors.Is(err, errClosing) {
			code = websocket.StatusGoingAway
		}
		c.endOnce.Do(func() { // the client never started: nothing else may end it
			c.mu.Lock()
			c.ended = true
			c.mu.Unlock()
			ws.Close(code, truncate(err.Error(), 120)) // reads the browser's answer itself
			release()
		})
		return
	}
	h.send() // the view's snapshot, if it has one
	h.startPings(c)
	if guard != nil {
		h.startGuard(c, guard)
	}
	go h.read(c, ws)
}

// read is the client's reader, its one goroutine: nothing but control
// frames comes from a browser, and the library answers pings, hands pongs
// to Ping and answers the close handshake while Reader waits for a data
// message, which a read-only socket refuses (as CloseRead would; its
// context, and the timer a context costs each read, are not needed). The
// client ends when the browser goes away.
func (h *Hub) read(c *client, ws *websocket.Conn) {
	if _, _, err := ws.Reader(context.Background()); err == nil {
		_ = ws.Close(websocket.StatusPolicyViolation, "unexpected data message")
	}
	h.end(c, errGone)
}

// addrKey is the unit the per-address cap counts: the IP, or its /64 for
// IPv6, which one host usually holds whole.
func addrKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	if ip = ip.Unmap(); ip.Is4() {
		return ip.String()
	}
	p, _ := ip.WithZone("").Prefix(64)
	return p.String()
}

// errClosing refuses sockets once the hub is stopping.
var errClosing = errors.New("the server is shutting down")

// admit counts a socket of addr, or refuses it over Options.PerAddr or
// while the hub stops; release undoes it when the socket ends. Shutdown
// waits for every admitted socket's close handshake.
func (h *Hub) admit(addr string) (release func(), err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return nil, errClosing
	}
	if h.perAddr[addr] >= h.opts.PerAddr {
		h.stats.refused.Add(1)
		return nil, fmt.Errorf("%d live connections from %s already; close some tabs or ask the operator to raise LIVE_ADDR_LIMIT", h.opts.PerAddr, addr)
	}
	h.perAddr[addr]++
	h.sockets.Add(1)
	return func() {
		h.mu.Lock()
		if h.perAddr[addr]--; h.perAddr[addr] <= 0 {
			delete(h.perAddr, addr)
		}
		h.mu.Unlock()
		h.sockets.Done()
	}, nil
}

// truncate keeps a close reason within the protocol's 123 bytes.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// counters are the hub's running totals and timings, for /metrics.
type counters struct {
	clients, frames, dropped, events, reads, lastReads, slowDisconnects atomic.Int64
	connections, refused, held                                          atomic.Int64
	timings                                                             timings
}

// Stats is a copy of the hub's counters.
type Stats struct {
	Clients         int64 // connected now
	Views           int64 // distinct views now
	Frames          int64 // frames written to clients
	Dropped         int64 // frames dropped for lagging clients (each replaced by a snapshot)
	Held            int64 // ticks a view's frame waited because its clients were still writing the last one
	Events          int64 // keyspace notifications received
	Reads           int64 // view reads
	LastTickReads   int64 // view reads in the last tick that read any
	SlowDisconnects int64 // clients dropped for not reading
	Connections     int64 // WebSockets accepted
	Refused         int64 // WebSockets refused: over the per-address limit
	Polling         bool  // notifications unavailable: polling watched keys
	// TickSeconds is how long ticks that read views took: the pipelined
	// re-read, the diffs and the encoding.
	TickSeconds Histogram
	// FrameLatencySeconds is how long, per tick that sent a changed frame, the
	// oldest keyspace notification it took waited until the frame was queued
	// for the view's clients.
	FrameLatencySeconds Histogram
}

// Stats reads the counters.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	views := int64(len(h.views))
	h.mu.Unlock()
	return Stats{
		Clients: h.stats.clients.Load(), Views: views, Frames: h.stats.frames.Load(), Dropped: h.stats.dropped.Load(), Held: h.stats.held.Load(),
		Events: h.stats.events.Load(), Reads: h.stats.reads.Load(), LastTickReads: h.stats.lastReads.Load(),
		SlowDisconnects: h.stats.slowDisconnects.Load(), Connections: h.stats.connections.Load(), Refused: h.stats.refused.Load(), Polling: h.polling.Load(),
		TickSeconds:         h.stats.timings.tick.snapshot(TickBuckets),
		FrameLatencySeconds: h.stats.timings.frame.snapshot(FrameLatencyBuckets),
	}
}
