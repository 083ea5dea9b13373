package live

import (
	"context"
	"runtime"
	"slices"

	"github.com/coder/websocket"
)

// Writing frames: queued by the hub without blocking, written by the
// tick's few writers through sockets that never wait, or by a goroutine
// per busy client over any other connection.

// deliver queues a frame without ever blocking the hub, and starts the
// client's writer if it is not running. A client whose queue is full is
// behind: its backlog is replaced by the latest state, its view's snapshot
// and its feed's last list. Called under the hub's lock, after the view or
// feed has recorded msg's state.
func (h *Hub) deliver(c *client, msg []byte) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	if len(c.queue) < h.opts.QueueSize {
		c.queue = append(c.queue, msg)
	} else {
		h.stats.dropped.Add(1)
		clear(c.queue)
		c.queue = c.queue[:0]
		if v := c.view; v != nil && v.snapMsg != nil {
			c.queue = append(c.queue, v.snapMsg)
		}
		if f := c.feed; f != nil && f.last != nil {
			c.queue = append(c.queue, f.last)
		}
	}
	start := !c.busy.Swap(true)
	c.mu.Unlock()
	switch {
	case !start:
	case c.sock != nil:
		h.ready = append(h.ready, c)
	default:
		go h.flush(c)
	}
}

// sendChunk is how many clients one of send's goroutines writes at least.
const sendChunk = 512

// send writes the frames deliver queued for socket clients, outside the
// hub's lock. A socket never waits, so one goroutine writes client after
// client, with no goroutine, timer or wake-up per frame; a few share a
// large view's clients, to use the machine's cores. Whoever delivers
// calls it once the hub's lock is released.
func (h *Hub) send() {
	h.mu.Lock()
	ready := h.ready
	h.ready = nil
	h.mu.Unlock()
	parts := min(runtime.GOMAXPROCS(0), (len(ready)+sendChunk-1)/sendChunk)
	if parts <= 1 {
		for _, c := range ready {
			h.pump(c)
		}
		return
	}
	for i := range parts {
		part := ready[i*len(ready)/parts : (i+1)*len(ready)/parts]
		go func() {
			for _, c := range part {
				h.pump(c)
			}
		}()
	}
}

// pump writes a socket client's queued frames until the queue is empty, or
// until the kernel has not taken the last one: the socket's drainer then
// calls it again once it has (wake), or ends the client after WriteTimeout.
// Only one pump runs for a client: the one whose deliver found it idle.
func (h *Hub) pump(c *client) {
	var frames int64
	defer func() { h.stats.frames.Add(frames) }()
	for {
		c.mu.Lock()
		if c.ended || len(c.queue) == 0 {
			c.busy.Store(false)
			c.mu.Unlock()
			return
		}
		if c.sock.park() {
			c.mu.Unlock()
			return
		}
		msg := c.queue[0]
		c.queue = slices.Delete(c.queue, 0, 1) // clears the freed slot: no frame stays referenced
		c.mu.Unlock()
		if err := c.sock.writeFrame(msg); err != nil {
			// Not here: end may wait for a close handshake under way (a
			// guard's 1008), and this goroutine writes other clients too.
			go h.end(c, err)
			return
		}
		frames++
	}
}

// woken is what a socket's drainer calls: err ended the socket, or the
// kernel has taken what it kept and the client's pump, parked, goes on.
func (h *Hub) woken(c *client, err error) {
	if err != nil {
		h.end(c, err)
		return
	}
	h.pump(c)
}

// flush writes a client's queued frames over a connection that may wait,
// and returns when the queue is empty. A write that takes longer than
// WriteTimeout (a reader that stopped reading) ends the client.
func (h *Hub) flush(c *client) {
	for {
		c.mu.Lock()
		if c.ended || len(c.queue) == 0 {
			c.busy.Store(false)
			c.mu.Unlock()
			return
		}
		msg := c.queue[0]
		c.queue = slices.Delete(c.queue, 0, 1) // clears the freed slot: no frame stays referenced
		c.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.WriteTimeout)
		err := c.conn.Write(ctx, websocket.MessageText, payload(msg))
		cancel()
		if err != nil {
			h.end(c, err)
			return
		}
		h.stats.frames.Add(1)
	}
}
