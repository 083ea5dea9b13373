package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// runClients connects n clients, reads every frame, and times each new probe
// value from its write to its receipt. Each client is a bare WebSocket
// reader (rawClient) so the load generator's own CPU stays small beside the
// server's: the two share the machine's cores.
func runClients(url string, n int, around bool, d time.Duration) error {
	var frames, received atomic.Int64
	var mu sync.Mutex
	var lat []int64
	var wg sync.WaitGroup
	connected := atomic.Int64{}
	stopAt := time.Now().Add(d + 15*time.Second)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%100 == 0 {
				time.Sleep(time.Duration(i/100) * 20 * time.Millisecond) // do not stampede the accept queue
			}
			probeName, u := "probe", url
			if around { // its own member, whose score is the time of its last write
				probeName = fmt.Sprintf("player-%05d", i)
				u = strings.Replace(url, "&limit=10", "&member="+probeName+"&radius=5", 1)
			}
			c, err := dialRaw(u, stopAt)
			if err != nil {
				fmt.Fprintln(os.Stderr, "dial:", err)
				return
			}
			defer c.Close()
			connected.Add(1)
			needle := []byte(`"m":"` + probeName + `"`)
			last := 0.0
			var mine []int64
			for {
				data, err := c.next()
				if err != nil {
					break
				}
				now := time.Now().UnixMilli()
				frames.Add(1)
				received.Add(int64(len(data)))
				if probe := valueAfter(data, needle); probe > last {
					if last > 0 {
						mine = append(mine, now-int64(probe))
					}
					last = probe
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return json.NewEncoder(os.Stdout).Encode(report{Connected: int(connected.Load()), Frames: frames.Load(), Bytes: received.Load(), Latencies: lat, CPUSeconds: cpuSeconds()})
}

// valueAfter finds a row by its member field and returns its "v" (the
// stored score), or 0: enough of the frame's JSON for the probe.
func valueAfter(data, member []byte) float64 {
	i := bytes.Index(data, member)
	if i < 0 {
		return 0
	}
	rest := data[i+len(member):]
	j := bytes.Index(rest, []byte(`"v":`))
	if j < 0 {
		return 0
	}
	rest = rest[j+4:]
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(string(rest[:end]), 64)
	return v
}

// rawClient is a minimal WebSocket client (RFC 6455) for reading frames:
// one buffered reader, one reused payload buffer, and answers to pings and
// to the close frame.
type rawClient struct {
	net.Conn
	r   *bufio.Reader
	buf []byte
}

func dialRaw(url string, until time.Time) (*rawClient, error) {
	rest, ok := strings.CutPrefix(url, "ws://")
	if !ok {
		return nil, fmt.Errorf("%s: only ws:// URLs", url)
	}
	host, path, _ := strings.Cut(rest, "/")
	conn, err := net.DialTimeout("tcp", host, 30*time.Second)
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(until)
	fmt.Fprintf(conn, "GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", path, host)
	c := &rawClient{Conn: conn, r: bufio.NewReaderSize(conn, 4096)}
	status, err := c.r.ReadString('\n')
	if err != nil || !strings.Contains(status, " 101 ") {
		conn.Close()
		return nil, fmt.Errorf("handshake: %q %v", strings.TrimSpace(status), err)
	}
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("handshake: %w", err)
		}
		if line == "\r\n" {
			return c, nil
		}
	}
}

// next returns the next text or binary message's payload, valid until the
// next call.
func (c *rawClient) next() ([]byte, error) {
	for {
		var h [8]byte
		if _, err := io.ReadFull(c.r, h[:2]); err != nil {
			return nil, err
		}
		op, n := h[0]&0x0f, uint64(h[1]&0x7f)
		switch n {
		case 126:
			if _, err := io.ReadFull(c.r, h[:2]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(h[:2]))
		case 127:
			if _, err := io.ReadFull(c.r, h[:8]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(h[:8])
		}
		if n > 1<<24 {
			return nil, fmt.Errorf("a frame of %d bytes", n)
		}
		if uint64(cap(c.buf)) < n {
			c.buf = make([]byte, n)
		}
		p := c.buf[:n]
		if _, err := io.ReadFull(c.r, p); err != nil {
			return nil, err
		}
		switch op {
		case 1, 2:
			return p, nil
		case 8: // close: answer it and stop
			_ = c.control(8, p)
			return nil, io.EOF
		case 9:
			if err := c.control(10, p); err != nil {
				return nil, err
			}
		}
	}
}

// control writes a masked control frame (the all-zero mask leaves the
// payload as it is).
func (c *rawClient) control(op byte, p []byte) error {
	f := append([]byte{0x80 | op, 0x80 | byte(len(p)), 0, 0, 0, 0}, p...)
	_, err := c.Write(f)
	return err
}
