// Package app is Podium's composition root: it builds the whole application
// from a validated Config (Redis or the embedded store, the store, the
// archive, the live hub, the console's parts, the webhook runner, the
// background jobs and the HTTP server) and runs it, every background loop
// under one errgroup, with one shutdown order. cmd/web, the end-to-end
// tests and the load harnesses build Podium through it.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/access"
	"podium/archive"
	"podium/audit"
	"podium/hooks"
	"podium/live"
	"podium/memberdata"
	"podium/redisstore"
	"podium/rows"
	"podium/web"
	"podium/web/signin"
)

// App is Podium assembled. Its fields are what tests and harnesses reach
// into; Run serves it and Close releases it.
type App struct {
	Config   Config
	Log      *slog.Logger
	Redis    redis.UniversalClient
	Store    *redisstore.Store
	Archive  *archive.DB       // nil WithoutArchive
	Archiver *archive.Archiver // nil WithoutArchive
	Hub      *live.Hub
	Cache    *live.Cache  // the pages' and the API's reads of open periods, kept fresh by Hub
	Masker   *rows.Masker // names members where boards hide names, alike on every replica
	Admin    *web.Admin
	Hooks    *hooks.Runner
	Server   *web.Server

	demo     *demo
	demoPass string   // the demo admin's password, said once when serving starts
	closers  []func() // run in reverse by Close
}

// Option changes how New builds the app, for tests and harnesses.
type Option func(*options)

type options struct {
	rdb          redis.UniversalClient
	storeOpts    []redisstore.Option
	noArchive    bool
	archive      *archive.DB
	passwordCost int
}

// WithRedis makes the app use rdb (which the caller closes) rather than
// the Redis the Config names.
func WithRedis(rdb redis.UniversalClient) Option { return func(o *options) { o.rdb = rdb } }

// WithStoreOptions adds options of the store (a clock, say).
func WithStoreOptions(opts ...redisstore.Option) Option {
	return func(o *options) { o.storeOpts = append(o.storeOpts, opts...) }
}

// WithoutArchive builds the app without its archive: closed periods stay
// in Redis, a period whose keys expired reads as gone, and nothing is
// archived. For tests that need no SQL file.
func WithoutArchive() Option { return func(o *options) { o.noArchive = true } }

// WithArchiveDB makes the app archive to db (which the caller closes)
// rather than the database the Config names.
func WithArchiveDB(db *archive.DB) Option { return func(o *options) { o.archive = db } }

// WithPasswordCost hashes new admin passwords at this bcrypt cost rather
// than the default: tests use bcrypt.MinCost to sign in quickly.
func WithPasswordCost(cost int) Option { return func(o *options) { o.passwordCost = cost } }

// New builds the app: it connects, opens the archive, brings stored boards
// up to date, makes the first admin (ADMIN_USER, or the demo's) and
// prepares the demo. Nothing runs until Run; Close releases what New
// opened, also when New fails half-way.
func New(ctx context.Context, cfg Config, log *slog.Logger, opt ...Option) (_ *App, err error) {
	var o options
	for _, f := range opt {
		f(&o)
	}
	a := &App{Config: cfg, Log: log}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	storeOpts, err := a.openRedis(ctx, o.rdb)
	if err != nil {
		return nil, err
	}
	storeOpts = append(storeOpts, redisstore.WithAuditKeep(cfg.AuditKeep))
	switch {
	case o.archive != nil:
		a.Archive = o.archive
	case !o.noArchive:
		if a.Archive, err = archive.Open(ctx, cfg.ArchiveTarget()); err != nil {
			return nil, err
		}
		a.closers = append(a.closers, func() { a.Archive.Close() })
	}
	if a.Archive != nil {
		storeOpts = append(storeOpts, redisstore.WithPast(a.Archive.Past()))
	}
	a.Store = redisstore.NewStore(a.Redis, append(storeOpts, o.storeOpts...)...)
	if err := prepareStore(ctx, a.Store, cfg, log); err != nil {
		return nil, err
	}
	key, err := access.PseudonymKey(ctx, a.Redis)
	if err != nil {
		return nil, err
	}
	a.Masker = rows.NewMasker(key)
	a.Hub = live.New(a.Redis, a.Store, live.Options{Tick: cfg.LiveTick, PerAddr: cfg.LivePerAddr, SelfPublished: cfg.Embedded(), DB: redisDB(a.Redis),
		Masker: a.Masker, Logger: log})
	if cfg.ReadCache {
		a.Cache = a.Hub.NewCache(a.Store)
		a.Store.OnWrite(a.Cache.Wrote) // whoever writes through this replica reads their write at once
	}
	a.Admin = newAdmin(a.Redis, a.Store, cfg, o.passwordCost)
	if a.Archive != nil {
		a.Archiver = &archive.Archiver{Store: a.Store, DB: a.Archive, Grace: cfg.ArchiveGrace, Log: log}
		a.Admin.Audit.SetArchive(a.Archive) // the console pages on from Redis into archived entries
		a.Admin.Archive = a.Archive         // a deleted board's periods go with it
		a.Admin.Members.Archiver = a.Archiver
	}
	a.Admin.Members.Log = log
	if cfg.Demo {
		if a.demo, err = prepareDemo(ctx, a.Store, a.Redis, cfg, log); err != nil {
			return nil, err
		}
	}
	if err := a.firstAdmin(ctx); err != nil {
		return nil, err
	}
	// Every replica runs the webhook runner; Redis picks the one that
	// queues each event and the one that makes each attempt.
	a.Hooks = hooks.NewRunner(a.Redis, a.Store, a.Admin.Hooks, hooks.Options{Tick: cfg.Hooks.Tick, Grace: cfg.Hooks.Grace,
		AllowPrivate: cfg.Hooks.AllowPrivate, Logger: log})
	a.Server = a.newServer()
	return a, nil
}

// openRedis takes rdb, or connects to the Config's Redis (or starts the
// embedded store).
func (a *App) openRedis(ctx context.Context, rdb redis.UniversalClient) ([]redisstore.Option, error) {
	if rdb != nil {
		a.Redis = rdb
		return nil, nil
	}
	rdb, opts, closeRedis, err := openRedis(ctx, a.Config, a.Log)
	if err != nil {
		return nil, err
	}
	a.Redis = rdb
	a.closers = append(a.closers, closeRedis)
	return opts, nil
}

// firstAdmin creates ADMIN_USER, or on a demo without admins an admin
// whose password Run says once.
func (a *App) firstAdmin(ctx context.Context) error {
	cfg := a.Config
	if cfg.AdminUser != "" {
		switch err := a.Admin.Accounts.Create(ctx, cfg.AdminUser, cfg.AdminPass); {
		case err == nil:
			a.Log.Info("created admin from ADMIN_USER", slog.String("user", cfg.AdminUser))
		case errors.Is(err, access.ErrExists):
		default:
			return fmt.Errorf("ADMIN_USER: %w", err)
		}
	}
	users, err := a.Admin.Accounts.List(ctx)
	if err != nil || len(users) > 0 {
		return nil
	}
	if !cfg.Demo {
		a.Log.Warn(noAdminHint(cfg))
		return nil
	}
	// A demo should be explorable end to end: make an admin and say its
	// password once.
	pass := randomSecret(12)
	if err := a.Admin.Accounts.Create(ctx, "admin", pass); err != nil {
		return fmt.Errorf("create the demo admin: %w", err)
	}
	a.demoPass = pass
	return nil
}

func (a *App) newServer() *web.Server {
	cfg := a.Config
	opts := web.Options{
		Store:        a.Store,
		Ready:        func(ctx context.Context) error { return a.Redis.Ping(ctx).Err() },
		BaseURL:      cfg.BaseURL,
		EmbedOrigins: cfg.EmbedOrigins,
		Live:         a.Hub,
		Admin:        a.Admin,
		TrustProxy:   cfg.TrustProxy,
		DefaultTZ:    cfg.TimeZone,
		MetricsToken: cfg.MetricsToken,
		Export:       archive.NewReader(a.Store, a.Archive, 4),
		BodyTimeout:  cfg.BodyTimeout,
		OIDC:         oidcConfig(cfg),
		Redis:        a.Redis, // measured for /metrics
		Masker:       a.Masker,
		Logger:       a.Log,
	}
	if a.Cache != nil { // never a typed nil in the interface
		opts.Cache = a.Cache
	}
	if a.Archive != nil {
		opts.History = a.Archive
		opts.Archiver = a.Archiver // its progress, for /metrics
	}
	return web.New(opts)
}

// NewAdmin is the console's parts on rdb.
func NewAdmin(rdb redis.UniversalClient, store *redisstore.Store, cfg Config) *web.Admin {
	return newAdmin(rdb, store, cfg, 0)
}

// newAdmin is NewAdmin hashing new passwords at cost (0: bcrypt's default).
func newAdmin(rdb redis.UniversalClient, store *redisstore.Store, cfg Config, cost int) *web.Admin {
	log := audit.New(rdb)
	links := access.NewLinks(rdb)
	return &web.Admin{
		Store: store, Accounts: access.NewAccounts(rdb, cost), Sessions: access.NewSessions(rdb),
		Keys: access.NewKeys(rdb), Grants: access.NewGrants(rdb), Allow: access.NewAllowLists(rdb), Links: links, Embeds: access.NewEmbeds(rdb), Limiter: access.NewLimiter(rdb), Audit: log, Signer: access.NewSigner(rdb),
		KeyLimit: cfg.KeyLimit, AddrLimit: cfg.AddrLimit, Hooks: hooks.NewRegistry(rdb, nil, hooks.AllowPrivate(cfg.Hooks.AllowPrivate)),
		Members: &memberdata.Service{Store: store, Audit: log, Links: links}, // its archive, if any, is set by New
	}
}

// noAdminHint says how to make the first admin, in a way that works with
// the store in use: the embedded store lives inside this process, where no
// `web admin create` can reach it, so there only ADMIN_USER/ADMIN_PASSWORD
// at start (or --demo) makes one.
func noAdminHint(cfg Config) string {
	if cfg.Embedded() {
		return "no admin account yet: the embedded store lives in this process, so restart with ADMIN_USER and ADMIN_PASSWORD set (e.g. ADMIN_USER=alice ADMIN_PASSWORD='at least 10 characters'), or with --demo for an admin and sample boards, to use /admin"
	}
	return "no admin account yet: set ADMIN_USER and ADMIN_PASSWORD and restart, or run `web admin create --user NAME` with the same Redis settings, to use /admin"
}

// Close releases what New opened (the archive, then Redis), in reverse.
func (a *App) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
}

// Listen opens the Config's address.
func (a *App) Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", a.Config.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", a.Config.Addr, err)
	}
	return ln, nil
}

// httpServer is the HTTP server of the app's handler.
func (a *App) httpServer() *http.Server {
	return &http.Server{
		Handler:           a.Server,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(a.Log.Handler(), slog.LevelWarn),
	}
}

// oidcConfig is sign-in with the organisation as web/signin takes it.
func oidcConfig(cfg Config) signin.Config {
	o := signin.Config{Issuer: cfg.OIDC.Issuer, ClientID: cfg.OIDC.ClientID, ClientSecret: cfg.OIDC.ClientSecret,
		Scopes: cfg.OIDC.Scopes, GroupsClaim: cfg.OIDC.GroupsClaim, AllowUnverified: cfg.OIDC.AllowUnverified}
	if cfg.BaseURL != "" {
		o.RedirectURL = cfg.BaseURL + signin.CallbackPath
	}
	return o
}
