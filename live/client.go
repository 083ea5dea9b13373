package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
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

// client is one browser tab. The hub queues frames without blocking; the
// client's own goroutine writes them with a timeout.
type client struct {
	conn     conn
	send     chan []byte
	view     *view // set and read under the hub's lock
	quit     chan struct{}
	stopOnce sync.Once
}

func newClient(c conn, queue int) *client {
	return &client{conn: c, send: make(chan []byte, queue), quit: make(chan struct{})}
}

func (c *client) stop() { c.stopOnce.Do(func() { close(c.quit) }) }

// errNoPong ends a client that did not answer a ping in time.
var errNoPong = errors.New("no answer to a ping")

// writeLoop sends queued frames until the client goes away, the hub stops, a
// write takes longer than the timeout (a reader that stopped reading), or a
// ping goes unanswered (a peer that is gone without a word). The ping waits
// for its pong in a goroutine of its own, only while it is out.
func (h *Hub) writeLoop(ctx context.Context, c *client) error {
	ping := time.NewTicker(h.opts.PingInterval)
	defer ping.Stop()
	unanswered := make(chan error, 1)
	out := false // a ping is waiting for its pong
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.quit:
			return nil
		case err := <-unanswered:
			out = false
			switch {
			case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
				return fmt.Errorf("%w in %v", errNoPong, h.opts.PongTimeout)
			case err != nil:
				return err // the client went away meanwhile
			}
		case <-ping.C:
			if out {
				continue
			}
			out = true
			go func() {
				pctx, cancel := context.WithTimeout(ctx, h.opts.PongTimeout)
				defer cancel()
				unanswered <- c.conn.Ping(pctx)
			}()
		case msg := <-c.send:
			wctx, cancel := context.WithTimeout(ctx, h.opts.WriteTimeout)
			err := c.conn.Write(wctx, websocket.MessageText, msg)
			cancel()
			if err != nil {
				return err
			}
			h.stats.frames.Add(1)
		}
	}
}

// connKey holds, in a request's context, the network connection it came on.
type connKey struct{}

// ConnContext remembers each connection in its requests' contexts, so a
// live socket can bound its kernel send buffer; set it as the
// http.Server's ConnContext.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// Serve upgrades a request to a WebSocket and streams the view to it until
// either side goes away. origins are the extra origins allowed to connect
// (full origins such as https://blog.example.com); "*" allows any. addr is
// the client's address: each may hold Options.PerAddr sockets at once.
func (h *Hub) Serve(w http.ResponseWriter, r *http.Request, spec Spec, origins []string, addr string) {
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
	defer release()
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
	ws, err := websocket.Accept(w, r, opts)
	if err != nil {
		h.log.Info("live: refused websocket", slog.String("origin", r.Header.Get("Origin")), slog.Any("error", err))
		return // Accept has answered (403 for a foreign origin)
	}
	// A reader that stops reading holds at most this much in the kernel
	// (which doubles the figure) before writes block and WriteTimeout drops
	// it; Linux's own tuning would let it grow to megabytes. Only upgraded
	// connections: a refused one goes on serving HTTP.
	if tc, ok := r.Context().Value(connKey{}).(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(h.opts.SendBuffer)
	}
	h.stats.connections.Add(1)
	// Nothing is read from browsers; CloseRead handles pongs and the close
	// handshake, and its context ends when the browser goes away.
	ctx := ws.CloseRead(context.WithoutCancel(r.Context()))
	c := newClient(ws, h.opts.QueueSize)
	if err := h.attach(ctx, c, spec); err != nil {
		code := websocket.StatusPolicyViolation
		if errors.Is(err, errClosing) {
			code = websocket.StatusGoingAway
		}
		ws.Close(code, truncate(err.Error(), 120))
		return
	}
	err = h.writeLoop(ctx, c)
	h.detach(c)
	switch {
	case err == nil:
		ws.Close(websocket.StatusGoingAway, "server shutting down")
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, errNoPong):
		h.stats.slowDisconnects.Add(1)
		h.log.Info("live: dropped a client that stopped reading", slog.String("board", spec.Board), slog.Any("error", err))
		ws.CloseNow()
	default:
		ws.CloseNow()
	}
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
	connections, refused                                                atomic.Int64
	timings                                                             timings
}

// Stats is a copy of the hub's counters.
type Stats struct {
	Clients         int64 // connected now
	Views           int64 // distinct views now
	Frames          int64 // frames written to clients
	Dropped         int64 // frames dropped for lagging clients (each replaced by a snapshot)
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
		Clients: h.stats.clients.Load(), Views: views, Frames: h.stats.frames.Load(), Dropped: h.stats.dropped.Load(),
		Events: h.stats.events.Load(), Reads: h.stats.reads.Load(), LastTickReads: h.stats.lastReads.Load(),
		SlowDisconnects: h.stats.slowDisconnects.Load(), Connections: h.stats.connections.Load(), Refused: h.stats.refused.Load(), Polling: h.polling.Load(),
		TickSeconds:         h.stats.timings.tick.snapshot(TickBuckets),
		FrameLatencySeconds: h.stats.timings.frame.snapshot(FrameLatencyBuckets),
	}
}
