// Package web is the HTTP side of Podium: Echo routes, middleware and one
// handler per page. Handlers read the request, call the board store and
// render a templ component.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"podium/board"
	"podium/web/static"
)

// Store is what the pages need from the board engine.
type Store interface {
	Now() time.Time
	Boards(ctx context.Context) ([]board.Board, error)
	Board(ctx context.Context, id string) (board.Board, error)
	Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)
	Around(ctx context.Context, b *board.Board, p board.Period, member string, k int) (board.Page, int, error)
	Member(ctx context.Context, b *board.Board, member string) ([]board.Standing, error)
	Search(ctx context.Context, b *board.Board, p board.Period, prefix string, limit int) ([]board.Entry, bool, error)
	Recent(ctx context.Context, b *board.Board, n int) ([]board.Activity, error)
	ReadViews(ctx context.Context, qs []board.ViewQuery) []board.ViewResult
}

// Options configure the server.
type Options struct {
	Store Store
	// Ready reports whether Redis answers, for /readyz.
	Ready func(ctx context.Context) error
	// BaseURL is the public URL of the site, used in embed snippets; empty
	// means the scheme and host of each request.
	BaseURL string
	// EmbedOrigins may frame /embed/ pages; "*" (the default) means any.
	EmbedOrigins []string
	// Live streams views over WebSockets; nil serves pages without live updates.
	Live Live
	// Admin enables the admin console and the JSON API's writes; nil serves
	// public pages and reads only.
	Admin *Admin
	// DefaultTZ is the time zone new boards start with in the admin form.
	DefaultTZ string
	// TrustProxy takes the client address from X-Forwarded-For and TLS from
	// X-Forwarded-Proto; leave it off unless a proxy you run sets them.
	TrustProxy bool
	Logger     *slog.Logger
}

// Server is the HTTP application.
type Server struct {
	echo  *echo.Echo
	opts  Options
	admin *Admin
	log   *slog.Logger
}

// New builds the server and its routes.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if len(opts.EmbedOrigins) == 0 {
		opts.EmbedOrigins = []string{"*"}
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	s := &Server{echo: e, opts: opts, admin: opts.Admin, log: opts.Logger}
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = echo.ExtractIPDirect()
	if opts.TrustProxy {
		e.IPExtractor = echo.ExtractIPFromXFFHeader()
	}

	e.Use(middleware.Recover())
	e.Use(s.requestLog())
	e.Use(s.securityHeaders())
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{Level: 5, MinLength: 1024,
		Skipper: func(c echo.Context) bool { return c.Request().URL.Path == "/live" }}))

	read := []string{http.MethodGet, http.MethodHead}
	e.Match(read, "/", s.home)
	e.Match(read, "/b/:board", s.boardPage)
	e.Match(read, "/b/:board/around/:member", s.aroundPage)
	e.Match(read, "/b/:board/m/:member", s.memberPage)
	e.Match(read, "/embed/:board", s.embedPage)
	e.Match(read, "/healthz", s.healthz)
	e.Match(read, "/readyz", s.readyz)
	e.Match(read, static.Prefix+"*", echo.WrapHandler(static.Handler()))
	if opts.Live != nil {
		e.GET("/live", s.liveSocket)
		e.GET("/metrics", s.metrics)
	}
	if opts.Admin != nil {
		if opts.Admin.KeyLimit == 0 {
			opts.Admin.KeyLimit = 1200
		}
		if opts.Admin.AddrLimit == 0 {
			opts.Admin.AddrLimit = 600
		}
		s.apiRoutes()
		s.adminRoutes()
	}
	if s.opts.DefaultTZ == "" {
		s.opts.DefaultTZ = "UTC"
	}
	return s
}

// ServeHTTP makes the server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }
