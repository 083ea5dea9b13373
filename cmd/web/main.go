// Command web serves Podium: live leaderboards on Redis.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
	_ "time/tzdata" // boards name IANA zones; the binary must know them on any host

	"podium/access"
	"podium/archive"
	"podium/hooks"
	"podium/live"
	"podium/redisstore"
	"podium/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { // a second signal during the drain ends the process at once
		<-ctx.Done()
		stop()
	}()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(1)
	}
}

// run starts everything, serves until ctx ends, then shuts down in order:
// drain, stop taking requests, wait for them, stop the hub (closing
// WebSockets), stop the demo, close Redis.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "admin" || args[0] == "apikey") {
		return runCommand(ctx, args, getenv, os.Stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "archive" {
		return runArchive(ctx, args[1:], getenv, stdout)
	}
	cfg, err := parseConfig(args, getenv, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr)

	rdb, storeOpts, closeRedis, err := openRedis(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeRedis()
	arch, err := archive.Open(ctx, cfg.ArchiveTarget())
	if err != nil {
		return err
	}
	defer arch.Close()
	store := redisstore.NewStore(rdb, append(storeOpts, redisstore.WithAuditKeep(cfg.AuditKeep), redisstore.WithPast(arch.Past()))...)
	if err := prepareStore(ctx, store, cfg, log); err != nil {
		return err
	}
	archiver := &archive.Archiver{Store: store, DB: arch, Grace: cfg.ArchiveGrace, Log: log}
	archCtx, stopArchiver := context.WithCancel(context.Background())
	archDone := make(chan struct{})
	go func() { defer close(archDone); archiver.Run(archCtx) }()
	defer func() { stopArchiver(); <-archDone }()
	log.Info("archiving closed periods", slog.String("to", arch.String()), slog.Duration("grace", cfg.ArchiveGrace))
	if cfg.DatabaseURL == "" && !cfg.Embedded() {
		log.Warn("the archive is an SQLite file of this process: run one replica, or set DATABASE_URL so replicas share one archive (they share the archiving state in Redis)")
	}
	// The background loops stop, and are waited for, before Redis closes,
	// whichever way run returns (an error below too).
	loopsCtx, stopLoops := context.WithCancel(ctx)
	var loops sync.WaitGroup
	defer func() { stopLoops(); loops.Wait() }()
	loops.Go(func() { refreshSchedules(loopsCtx, store, !cfg.Embedded(), log) })
	loops.Go(func() { rollWindows(loopsCtx, store, log) })
	if !cfg.Embedded() {
		loops.Go(func() { ensureFunctions(loopsCtx, store, 30*time.Second, log) })
	}
	// Scheduled freezes are taken at their time even when nothing writes or
	// reads (every replica; each take is idempotent).
	loops.Go(func() {
		store.RunFreezes(loopsCtx, 10*time.Second, func(err error) {
			if loopsCtx.Err() == nil {
				log.Warn("take a scheduled freeze", slog.Any("error", err))
			}
		})
	})
	hub := live.New(rdb, store, live.Options{Tick: cfg.LiveTick, PerAddr: cfg.LivePerAddr, SelfPublished: cfg.Embedded(), DB: redisDB(rdb), Logger: log})
	hubCtx, stopHub := context.WithCancel(context.Background())
	hubDone := make(chan struct{})
	go func() { defer close(hubDone); hub.Run(hubCtx) }()
	defer func() { stopHub(); <-hubDone }()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	demoDone := make(chan struct{})
	if cfg.Demo {
		d, err := prepareDemo(ctx, store, rdb, cfg, log)
		if err != nil {
			return err
		}
		go func() {
			defer close(demoDone)
			d.run(ctx)
		}()
	} else {
		close(demoDone)
	}

	admin := newAdmin(rdb, store, cfg)
	admin.Audit.SetArchive(arch) // the console pages on from Redis into archived entries
	if cfg.AdminUser != "" {
		switch err := admin.Accounts.Create(ctx, cfg.AdminUser, cfg.AdminPass); {
		case err == nil:
			log.Info("created admin from ADMIN_USER", slog.String("user", cfg.AdminUser))
		case errors.Is(err, access.ErrExists):
		default:
			return fmt.Errorf("ADMIN_USER: %w", err)
		}
	}
	var demoPass string // shown in the banner once the server is ready
	if users, err := admin.Accounts.List(ctx); err == nil && len(users) == 0 {
		if cfg.Demo {
			// A demo should be explorable end to end: make an admin and say its
			// password once, here.
			pass := demoPassword()
			if err := admin.Accounts.Create(ctx, "admin", pass); err != nil {
				return fmt.Errorf("create the demo admin: %w", err)
			}
			demoPass = pass
		} else {
			log.Warn(noAdminHint(cfg))
		}
	}
	// Every replica runs the webhook runner; Redis picks the one that
	// queues each event and the one that makes each attempt.
	hookRunner := hooks.NewRunner(rdb, store, admin.Hooks, hooks.Options{Tick: cfg.Hooks.Tick, Grace: cfg.Hooks.Grace,
		AllowPrivate: cfg.Hooks.AllowPrivate, Logger: log})
	hooksCtx, stopHooks := context.WithCancel(context.Background())
	hooksDone := make(chan struct{})
	go func() { defer close(hooksDone); hookRunner.Run(hooksCtx) }()
	defer func() { stopHooks(); <-hooksDone }() // lets attempts in flight finish (10 s at most)
	srv := web.New(web.Options{
		Store:        store,
		Ready:        func(ctx context.Context) error { return rdb.Ping(ctx).Err() },
		BaseURL:      cfg.BaseURL,
		EmbedOrigins: cfg.EmbedOrigins,
		Live:         hub,
		Admin:        admin,
		TrustProxy:   cfg.TrustProxy,
		DefaultTZ:    cfg.TimeZone,
		MetricsToken: cfg.MetricsToken,
		Export:       archive.NewReader(store, arch, 4),
		History:      arch,
		BodyTimeout:  cfg.BodyTimeout,
		Redis:        rdb,      // measured for /metrics
		Archiver:     archiver, // its progress, for /metrics
		Logger:       log,
	})
	stopMetrics, err := serveMetrics(cfg, srv, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	httpSrv := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ConnContext:       live.ConnContext, // a live socket bounds its send buffer
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Live sockets are hijacked: Shutdown does not wait for them. Stopping
	// the hub as Shutdown begins (after the drain) sends every one 1001
	// meanwhile, so the two waits overlap rather than add up.
	httpSrv.RegisterOnShutdown(stopHub)
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	url := localURL(ln.Addr())
	log.Info("podium is up", slog.String("url", url), slog.Bool("demo", cfg.Demo))
	if demoPass != "" {
		log.Warn("demo admin created (password shown once)", slog.String("user", "admin"), slog.String("password", demoPass))
		fmt.Fprintf(stdout, "\n  Podium is running at %s\n  Console: %s/admin  user: admin  password: %s  (shown once)\n\n", url, url, demoPass)
	}

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("draining: /readyz answers 503 and answers close their connections", slog.Duration("for", cfg.Drain))
	err = shutdown(httpSrv, srv, time.After(cfg.Drain), cfg.Shutdown, log)
	// Shutdown does not wait for hijacked connections: stopping the hub
	// closes every WebSocket with "going away".
	stopHub()
	<-hubDone
	cancel()
	<-demoDone
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// serveMetrics starts the /metrics listener of its own (METRICS_ADDR), for
// the monitoring network only; the returned func stops it.
func serveMetrics(cfg Config, srv *web.Server, log *slog.Logger) (func(), error) {
	if cfg.MetricsAddr == "" {
		if cfg.MetricsToken == "" {
			level := slog.LevelInfo
			if cfg.Embedded() {
				level = slog.LevelDebug // make run: not a deployment, nothing to monitor
			}
			log.Log(context.Background(), level, "metrics are off: set METRICS_ADDR (a listener of their own) or METRICS_TOKEN (on the main address, with a bearer token)")
		}
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", cfg.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("listen for metrics on %s: %w", cfg.MetricsAddr, err)
	}
	ms := &http.Server{Handler: srv.MetricsHandler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = ms.Serve(ln) }()
	log.Info("metrics", slog.String("url", localURL(ln.Addr())+"/metrics"))
	return func() { _ = ms.Close() }, nil
}

// prepareStore brings boards from earlier versions up to date and loads the
// Function library outside writers call (FCALL podium_submit).
func prepareStore(ctx context.Context, store *redisstore.Store, cfg Config, log *slog.Logger) error {
	upgraded, err := store.Upgrade(ctx)
	for _, id := range upgraded {
		log.Info("board upgraded: scores now kept in exact units", slog.String("board", id))
	}
	if err != nil {
		return err
	}
	if err := store.LoadFunctions(ctx); err != nil {
		if cfg.Embedded() {
			log.Debug("the embedded store has no Redis Functions: FCALL podium_submit is not available", slog.Any("error", err))
		} else {
			log.Warn("outside writers cannot use FCALL podium_submit (it needs Redis 7 or newer, on every primary of a Cluster); API writes are unaffected; retried hourly", slog.Any("error", err))
		}
	}
	return nil
}

// refreshSchedules keeps every board's period schedule, which FCALL
// podium_submit reads, a horizon ahead: at start and every hour. Each hour
// it also reloads the Function library, which reaches a Cluster primary
// added since the start.
func refreshSchedules(ctx context.Context, store *redisstore.Store, reload bool, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if err := store.RefreshSchedules(ctx); err != nil && ctx.Err() == nil {
			log.Warn("refresh period schedules for FCALL podium_submit", slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if reload {
			if err := store.LoadFunctions(ctx); err != nil && ctx.Err() == nil {
				log.Warn("reload the Function library for FCALL podium_submit", slog.Any("error", err))
			}
		}
	}
}

// ensureFunctions loads the Function library into a primary that lacks it
// (one added to a Cluster, a Redis replaced empty) within one period of
// every, rather than at the next hourly reload.
func ensureFunctions(ctx context.Context, store *redisstore.Store, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, err := store.EnsureFunctions(ctx)
		if err != nil && ctx.Err() == nil {
			// Debug: on Redis 6 this fails every time, and the hourly
			// reload already warns of it.
			log.Debug("load the Function library where it is missing, for FCALL podium_submit", slog.Any("error", err))
		}
		if n > 0 {
			log.Info("loaded the Function library into primaries that lacked it", slog.Int("primaries", n))
		}
	}
}

// rollWindows takes the buckets that leave the boards' rolling windows out
// of them: every replica checks every 10 seconds, so a window is at most
// that late past a bucket boundary (redisstore/window.go).
func rollWindows(ctx context.Context, store *redisstore.Store, log *slog.Logger) {
	r := &redisstore.Roller{Store: store}
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		if err := r.Tick(ctx); err != nil && ctx.Err() == nil {
			log.Warn("roll the boards' rolling windows", slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func newLogger(cfg Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// localURL is the address a person on this machine can open.
func localURL(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(tcp.Port))
}

// demoPassword is a random password for the demo admin.
func demoPassword() string { return randomSecret(12) }

// randomSecret is n random bytes, base64url-encoded.
func randomSecret(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // the OS has no randomness: nothing is safe to do
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
