package live

import (
	"encoding/binary"
	"encoding/json"
)

// Frames as they go on the wire (RFC 6455): the hub encodes each message
// once per view and frames it once, and the same bytes go to every client
// of the view. A server's frames are not masked, so they are the same for
// every connection.

const (
	opText  = 0x1
	opClose = 0x8
	fin     = 0x80
)

// encode is v as JSON in a text frame.
func encode(v any) ([]byte, error) {
	p, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return framed(p), nil
}

// framed is p in a final text frame.
func framed(p []byte) []byte {
	var f []byte
	switch n := len(p); {
	case n < 126:
		f = make([]byte, 2, 2+n)
		f[1] = byte(n)
	case n <= 0xffff:
		f = make([]byte, 4, 4+n)
		f[1] = 126
		binary.BigEndian.PutUint16(f[2:], uint16(n))
	default:
		f = make([]byte, 10, 10+n)
		f[1] = 127
		binary.BigEndian.PutUint64(f[2:], uint64(n))
	}
	f[0] = fin | opText
	return append(f, p...)
}

// payload is what frame f (of framed) carries: what a connection that
// frames it again (the library's Write) is given.
func payload(f []byte) []byte {
	switch f[1] & 0x7f {
	case 126:
		return f[4:]
	case 127:
		return f[10:]
	}
	return f[2:]
}

// frameSize is the length of the WebSocket frame p starts with, header
// included; ok is false while p is too short to tell.
func frameSize(p []byte) (size int, ok bool) {
	if len(p) < 2 {
		return 0, false
	}
	head, n := 2, uint64(p[1]&0x7f)
	switch n {
	case 126:
		if len(p) < 4 {
			return 0, false
		}
		head, n = 4, uint64(binary.BigEndian.Uint16(p[2:4]))
	case 127:
		if len(p) < 10 {
			return 0, false
		}
		head, n = 10, binary.BigEndian.Uint64(p[2:10])
	}
	if p[1]&0x80 != 0 { // masked: never from a server, but a frame all the same
		head += 4
	}
	return head + int(n), true
}
