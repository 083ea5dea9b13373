// Package web assembles Podium's HTTP server: the Echo instance, the
// middleware every response passes through, the routes of each part (the
// public pages, the admin console, the JSON API), static files, health,
// metrics, and the one place errors become answers. The parts live in
// web/pages, web/admin and web/api and never import this package.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/redis/go-redis/v9"

	"podium/access"
	"podium/audit"
	"podium/hooks"
	"podium/memberdata"
	"podium/rows"
	"podium/web/admin"
	"podium/web/api"
	"podium/web/pages"
	"podium/web/request"
	"podium/web/signin"
	"podium/web/static"
	"podium/web/templates"
)

// Writer is the store the console and the API change boards with: the
// board engine, as each part sees it.
type Writer interface {
	pages.Store
	admin.Store
	api.Store
}

// Admin enables changes: the admin console and the API's writes. It is what
// they need besides the store: who may act, limits, and the record.
type Admin struct {
	Store    Writer
	Accounts *access.Accounts
	Sessions *access.Sessions
	Keys     *access.Keys
	Grants   *access.Grants     // board users' roles
	Allow    *access.AllowLists // who may read a private board by signing in with the organisation
	Links    *access.Links      // share links of private boards
	Embeds   *access.Embeds     // embed secrets: private boards' widgets on other sites
	// Archive is where closed periods went (nil: no archive): a deleted
	// board's are dropped with it (Forgetter).
	Archive interface {
		DropBoard(ctx context.Context, boardID string) (int64, error)
	}
	Limiter *access.Limiter
	Audit   *audit.Log
	Signer  *access.Signer
	// Requests per minute allowed per API key and per client address.
	KeyLimit, AddrLimit int
	// Hooks keeps the boards' webhooks (hooks.Registry); nil: the console
	// has no webhook pages.
	Hooks *hooks.Registry
	// Members is a member's data and its erasure, in the console and the
	// API; nil: neither offers them.
	Members *memberdata.Service
}

// Options configure the server.
type Options struct {
	Store pages.Store
	// Cache, when set, answers the public pages' and the API's reads of
	// open periods (live.Cache); the console reads the store.
	Cache Reads
	// Ready reports whether Redis answers, for /readyz.
	Ready func(ctx context.Context) error
	// BaseURL is the public URL of the site, used in embed snippets; empty
	// means the scheme and host of each request.
	BaseURL string
	// EmbedOrigins may frame /embed/ pages; "*" (the default) means any.
	EmbedOrigins []string
	// Live streams views over WebSockets; nil serves pages without live updates.
	Live pages.Live
	// Admin enables the admin console and the JSON API's writes; nil serves
	// public pages and reads only.
	Admin *Admin
	// DefaultTZ is the time zone of new boards: the admin form's first
	// value, and the API's when a new board names none.
	DefaultTZ string
	// TrustProxy takes the client address from X-Forwarded-For and TLS from
	// X-Forwarded-Proto; leave it off unless a proxy you run sets them.
	TrustProxy bool
	// MetricsToken, when set, serves /metrics on this server to requests
	// that carry it as a bearer token; otherwise /metrics is only on the
	// handler MetricsHandler returns, for a listener of its own.
	MetricsToken string
	// Redis, when set, is measured for /metrics (InstrumentRedis): command
	// latency and errors, and its connection pool. Commands sent before
	// New are not counted.
	Redis redis.UniversalClient
	// Archiver, when set, reports archiving progress for /metrics.
	Archiver Archiver
	// Export serves whole periods as CSV and JSON downloads (the board page
	// and the API); nil: none.
	Export request.Exporter
	// History serves past winners from the archive; nil: none.
	History pages.History
	// Masker names members where a board's privacy mode hides names, alike
	// on every replica (rows.Masker with access.PseudonymKey); nil: a key
	// of this process.
	Masker *rows.Masker
	// BodyTimeout is how long a request's body may take to arrive after its
	// headers; a slower client gets 408. Zero means DefaultBodyTimeout.
	BodyTimeout time.Duration
	// OIDC is sign-in with the organisation (with Admin); Issuer "": off.
	OIDC   signin.Config
	Logger *slog.Logger
}

// Server is the HTTP application.
type Server struct {
	echo    *echo.Echo
	opts    Options
	api     *api.Handler
	log     *slog.Logger
	metrics *metrics
	// draining is set by Drain, before a shutdown.
	draining atomic.Bool
}

// New builds the server and its routes.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	if len(opts.EmbedOrigins) == 0 {
		opts.EmbedOrigins = []string{"*"}
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	s := &Server{echo: e, opts: opts, log: opts.Logger, metrics: newMetrics(opts)}
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = echo.ExtractIPDirect()
	if opts.TrustProxy {
		e.IPExtractor = echo.ExtractIPFromXFFHeader()
	}

	e.Use(s.metrics.measure) // first: it sees what the others answer, panics included
	e.Use(middleware.Recover())
	e.Use(s.requestLog())
	e.Use(s.securityHeaders())
	e.Use(s.closeWhileDraining)
	e.Use(s.bodyDeadline)
	if opts.OIDC.Enabled() && opts.Admin != nil {
		e.Use(signInHeader)
	}
	// Compression for what is read: the answers to writes are short, and
	// the middleware resets a compressor twice per request whatever the
	// length (a quarter of the CPU of single API writes, measured).
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{Level: 5, MinLength: 1024,
		Skipper: func(c echo.Context) bool {
			m := c.Request().Method
			// WebSockets (/live, and the console's live standings) are hijacked.
			return (m != http.MethodGet && m != http.MethodHead) || isWebSocket(c.Request())
		}}))

	read := []string{http.MethodGet, http.MethodHead}
	e.Match(read, "/healthz", s.healthz)
	e.Match(read, "/readyz", s.readyz)
	e.Match(read, static.Prefix+"*", echo.WrapHandler(static.Handler()))
	if opts.MetricsToken != "" {
		e.GET("/metrics", echo.WrapHandler(s.metrics.handler(false)), s.requireMetricsToken) // compressed by the middleware above
	}

	// One gate for every public surface: what a request may read.
	gate := &request.Gate{Store: opts.Store, Masker: opts.Masker}
	if a := opts.Admin; a != nil {
		if a.Keys != nil {
			gate.Keys = a.Keys
		}
		if a.Links != nil {
			gate.Links = a.Links
		}
		if a.Embeds != nil && a.Signer != nil {
			gate.Embeds, gate.Tickets = a.Embeds, a.Signer
		}
		if a.Sessions != nil && a.Accounts != nil && a.Grants != nil {
			gate.Readers = access.NewReaders(a.Sessions, a.Accounts, a.Grants, a.Allow)
		}
	}
	var pagesStore pages.Store = opts.Store
	if opts.Cache != nil {
		pagesStore = cachedPages{Store: opts.Store, c: opts.Cache}
	}
	pages.New(pages.Options{Store: pagesStore, Live: opts.Live, BaseURL: opts.BaseURL, EmbedOrigins: opts.EmbedOrigins, Export: opts.Export,
		History: opts.History, Gate: gate, TrustProxy: opts.TrustProxy, Logger: opts.Logger}).Routes(e)
	s.api = api.New(api.Options{Logger: opts.Logger}) // answers errors under /api/ even without routes
	if opts.Admin != nil {
		s.mountAdmin(e, opts.Admin, gate)
	}
	return s
}

// mountAdmin mounts the parts that change boards: the API (its writes
// and, with them, its reads) and the console.
func (s *Server) mountAdmin(e *echo.Echo, a *Admin, gate *request.Gate) {
	opts := s.opts
	forget := Forgetter{Links: a.Links, Embeds: a.Embeds, Archive: a.Archive, Accounts: a.Accounts, Grants: a.Grants, Allow: a.Allow}.Forget
	apiOpts := api.Options{Store: a.Store, Keys: a.Keys, Forget: forget, Limiter: a.Limiter, Audit: a.Audit,
		KeyLimit: a.KeyLimit, AddrLimit: a.AddrLimit, Export: opts.Export, Hooks: a.Hooks, DefaultTZ: opts.DefaultTZ, Gate: gate, Logger: opts.Logger}
	orgSignIn := opts.OIDC.Enabled() && a.Allow != nil
	if orgSignIn {
		signin.New(signin.Options{Config: opts.OIDC, Sessions: a.Sessions, Accounts: a.Accounts, Signer: a.Signer,
			TrustProxy: opts.TrustProxy, Logger: opts.Logger}).Routes(e)
	}
	adminOpts := admin.Options{Store: a.Store, Accounts: a.Accounts, Sessions: a.Sessions, Keys: a.Keys, Grants: a.Grants, Allow: a.Allow, OrgSignIn: orgSignIn, Links: a.Links, Embeds: a.Embeds, Forget: forget, Limiter: a.Limiter,
		Audit: a.Audit, Signer: a.Signer, Hooks: a.Hooks, DefaultTZ: opts.DefaultTZ, TrustProxy: opts.TrustProxy, Logger: opts.Logger, Live: adminLive(opts.Live)}
	if opts.Cache != nil {
		apiOpts.Store = cachedAPI{Store: a.Store, c: opts.Cache}
	}
	if a.Members != nil { // never a typed nil in the interfaces
		apiOpts.Members, adminOpts.Members = a.Members, a.Members
	}
	s.api = api.New(apiOpts)
	s.api.Routes(e)
	admin.New(adminOpts).Routes(e)
}

// ServeHTTP makes the server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// adminLive is the hub as the console sees it; nil without live updates (a
// nil interface, never a typed nil).
func adminLive(l pages.Live) admin.LiveServer {
	if l == nil {
		return nil
	}
	return l
}

// Routes lists the server's routes: the gate's test walks them to prove
// that every public surface asks the gate.
func (s *Server) Routes() []*echo.Route { return s.echo.Routes() }

// signInHeader tells each page's header whether to offer sign-in with the
// organisation or sign-out: by the session cookie's presence alone, with
// no Redis read (a page does not check a session it does not need).
func signInHeader(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ck, err := c.Cookie(request.SessionCookie)
		r := c.Request()
		si := templates.SignIn{On: true, SignedIn: err == nil && ck.Value != "", Next: signin.LocalPath(r.URL.RequestURI())}
		if strings.HasPrefix(r.URL.Path, "/auth/") {
			si.Next = "/" // a sign-in's own pages (a callback's code and state) are nowhere to come back to
		}
		c.SetRequest(r.WithContext(templates.WithSignIn(r.Context(), si)))
		return next(c)
	}
}
