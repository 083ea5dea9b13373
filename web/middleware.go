package web

import (
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// securityHeaders sets a strict CSP on every response. Only /embed/ pages may
// be framed, by the configured origins; every other page refuses framing.
func (s *Server) securityHeaders() echo.MiddlewareFunc {
	var frame []string
	for _, o := range s.opts.EmbedOrigins {
		if o != "null" { // "null" may open the live socket; it names no framing page
			frame = append(frame, o)
		}
	}
	ancestors := strings.Join(frame, " ")
	if ancestors == "" {
		ancestors = "'none'"
	}
	base := "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
		"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors "
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
			h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
			if s.overTLS(c) {
				// Only over HTTPS: sent over plain HTTP it would be ignored at
				// best, and a proxy's word counts only when it is trusted.
				// Not includeSubDomains: other sites of the same domain are not
				// ours to commit to HTTPS.
				h.Set("Strict-Transport-Security", "max-age=31536000")
			}
			if strings.HasPrefix(c.Request().URL.Path, "/embed/") {
				h.Set("Content-Security-Policy", base+ancestors)
			} else {
				h.Set("Content-Security-Policy", base+"'none'")
				h.Set("X-Frame-Options", "DENY")
				h.Set("Cross-Origin-Opener-Policy", "same-origin")
			}
			return next(c)
		}
	}
}

// requestLog writes one slog line per request. It hands a handler's error to
// handleError itself, so the line carries the status actually sent (echo would
// otherwise answer the error after the line is written, logged as a 200).
func (s *Server) requestLog() echo.MiddlewareFunc {
	logged := middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod:    true,
		LogURI:       true,
		LogStatus:    true,
		LogLatency:   true,
		LogRemoteIP:  true,
		LogUserAgent: false,
		HandleError:  true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			// Requests are routine: debug, so the log shows what matters
			// (LOG_LEVEL=debug to see them). Failures are logged with their
			// cause where they are handled; this line only adds the timing.
			level := slog.LevelDebug
			if v.Status >= 500 {
				level = slog.LevelWarn
			}
			s.log.LogAttrs(c.Request().Context(), level, "request",
				slog.String("method", v.Method),
				slog.String("uri", clipURI(v.URI)),
				slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency),
				slog.String("remote", v.RemoteIP))
			return nil
		},
	})
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		h := logged(next)
		return func(c echo.Context) error {
			_ = h(c) // already answered by handleError; returned, it would be handled twice
			return nil
		}
	}
}

// overTLS reports whether the client reached us over HTTPS: directly, or,
// with TrustProxy, through a proxy that says so in X-Forwarded-Proto.
func (s *Server) overTLS(c echo.Context) bool {
	r := c.Request()
	return r.TLS != nil || (s.opts.TrustProxy && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https"))
}

// secretParam finds the values of query parameters that carry access: a
// signed widget's signature and a live socket's ticket.
var secretParam = regexp.MustCompile(`([?&](?:sig|ticket)=)[^&]*`)

// redactURI keeps credentials out of the log: a share link's token in
// /s/<token>, and sig= and ticket= values.
func redactURI(u string) string {
	if strings.HasPrefix(u, "/s/") {
		return "/s/[token]"
	}
	if strings.Contains(u, "sig=") || strings.Contains(u, "ticket=") {
		u = secretParam.ReplaceAllString(u, "${1}[redacted]")
	}
	return u
}

// clipURI bounds a request URI in the log: a hostile one may be megabytes.
func clipURI(u string) string {
	u = redactURI(u)
	const max = 512
	if len(u) <= max {
		return u
	}
	return fmt.Sprintf("%s... (%d bytes)", strings.ToValidUTF8(u[:max], "?"), len(u))
}
