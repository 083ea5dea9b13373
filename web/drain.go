package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// Drain begins the way out before a shutdown: /readyz answers 503, so load
// balancers stop sending new requests, and every answer carries
// Connection: close, so a client on a keep-alive connection gets its answer
// and opens its next request elsewhere. Shutting down at once would close
// connections that look idle while a request may be arriving on them, and
// a client could not tell whether a write without an idempotency key was
// applied.
func (s *Server) Drain() { s.draining.Store(true) }

// closeWhileDraining marks every answer of a draining server
// Connection: close; net/http then closes the connection after it.
// WebSocket handshakes are left alone: the hub closes their sockets with
// 1001 when the shutdown begins.
func (s *Server) closeWhileDraining(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.draining.Load() && !isWebSocket(c.Request()) {
			c.Response().Header().Set("Connection", "close")
		}
		return next(c)
	}
}

// isWebSocket tells whether r asks to become a WebSocket.
func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}
