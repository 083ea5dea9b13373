package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"
)

// Run serves on ln until ctx ends, then shuts down in one order: drain
// (/readyz answers 503, answers close their connections, for DRAIN_PERIOD),
// stop taking requests and wait for those in flight, close the live
// sockets, then stop the demo, the webhook runner (attempts in flight
// finish), the background jobs and the archiver, and wait for all of them.
// Every background loop runs in one errgroup; Run returns once all have
// stopped. out gets the banner a person reads (the demo's admin password).
func (a *App) Run(ctx context.Context, ln net.Listener, out io.Writer) error {
	cfg, log := a.Config, a.Log
	// The loops outlive ctx: they stop in order, after the server.
	var g errgroup.Group
	hubCtx, stopHub := context.WithCancel(context.WithoutCancel(ctx))
	demoCtx, stopDemo := context.WithCancel(context.WithoutCancel(ctx))
	hooksCtx, stopHooks := context.WithCancel(context.WithoutCancel(ctx))
	jobsCtx, stopJobs := context.WithCancel(context.WithoutCancel(ctx))
	archCtx, stopArchiver := context.WithCancel(context.WithoutCancel(ctx))
	stopAll := func() { stopHub(); stopDemo(); stopHooks(); stopJobs(); stopArchiver() }
	defer func() { stopAll(); _ = g.Wait() }()

	if a.Archiver != nil { // none WithoutArchive
		g.Go(func() error { a.Archiver.Run(archCtx); return nil })
		log.Info("archiving closed periods", slog.String("to", a.Archive.String()), slog.Duration("grace", cfg.ArchiveGrace))
		if cfg.DatabaseURL == "" && !cfg.Embedded() {
			log.Warn("the archive is an SQLite file of this process: run one replica, or set DATABASE_URL so replicas share one archive (they share the archiving state in Redis)")
		}
	}
	a.startJobs(jobsCtx, &g)
	g.Go(func() error { a.Hub.Run(hubCtx); return nil })
	if a.demo != nil {
		g.Go(func() error { a.demo.run(demoCtx); return nil })
	}
	g.Go(func() error { a.Hooks.Run(hooksCtx); return nil })

	stopMetrics, err := a.serveMetrics()
	if err != nil {
		return err
	}
	defer stopMetrics()
	httpSrv := a.httpServer()
	// Live sockets are hijacked: Shutdown does not wait for them. Stopping
	// the hub as Shutdown begins (after the drain) sends every one 1001
	// meanwhile, so the two waits overlap rather than add up.
	httpSrv.RegisterOnShutdown(stopHub)
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	a.sayUp(ln.Addr(), out)

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("draining: /readyz answers 503 and answers close their connections", slog.Duration("for", cfg.Drain))
	err = shutdown(httpSrv, a.Server, time.After(cfg.Drain), cfg.Shutdown, log)
	stopAll()
	_ = g.Wait()
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// sayUp logs the address served, and the demo admin's password once.
func (a *App) sayUp(addr net.Addr, out io.Writer) {
	url := localURL(addr)
	a.Log.Info("podium is up", slog.String("url", url), slog.Bool("demo", a.Config.Demo))
	if a.demoPass != "" {
		a.Log.Warn("demo admin created (password shown once)", slog.String("user", "admin"), slog.String("password", a.demoPass))
		fmt.Fprintf(out, "\n  Podium is running at %s\n  Console: %s/admin  user: admin  password: %s  (shown once)\n\n", url, url, a.demoPass)
	}
}

// serveMetrics starts the /metrics listener of its own (METRICS_ADDR), for
// the monitoring network only; the returned func stops it.
func (a *App) serveMetrics() (func(), error) {
	cfg, log := a.Config, a.Log
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
	ms := &http.Server{Handler: a.Server.MetricsHandler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = ms.Serve(ln) }()
	log.Info("metrics", slog.String("url", localURL(ln.Addr())+"/metrics"))
	return func() { _ = ms.Close() }, nil
}

// NewLogger is the app's log on w, in the Config's format and level.
func NewLogger(cfg Config, w io.Writer) *slog.Logger {
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
