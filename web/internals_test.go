package web

import "github.com/labstack/echo/v4"

// What the tests of package web_test (which build Podium through app, and
// so cannot be in package web) reach inside the server for.

// Unmatched is the route label of requests that matched no route.
const Unmatched = unmatched

// Echo is the server's Echo instance, for a test that adds a route.
func (s *Server) Echo() *echo.Echo { return s.echo }
