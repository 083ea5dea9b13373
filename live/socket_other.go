//go:build !unix

package live

// nonBlockingWrites: no sockets here; a goroutine writes each client's
// frames, bounded by a context.
const nonBlockingWrites = false

func (s *socket) tryWrite(uintptr) bool { return true }
