//go:build unix

package live

import "golang.org/x/sys/unix"

// nonBlockingWrites: sockets write frames with writev, never waiting.
const nonBlockingWrites = true

// tryWrite writes s.a and s.b once, without waiting for room in the
// kernel (Go's sockets are non-blocking): s.n is what it took, s.errno
// EAGAIN when it took nothing (under mu, through raw.Write).
func (s *socket) tryWrite(fd uintptr) bool {
	for {
		if len(s.b) == 0 {
			s.n, s.errno = unix.Write(int(fd), s.a)
		} else {
			s.n, s.errno = unix.Writev(int(fd), [][]byte{s.a, s.b})
		}
		if s.errno != unix.EINTR {
			s.n = max(s.n, 0)
			return true
		}
	}
}
