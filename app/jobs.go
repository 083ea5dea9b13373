package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"time"

	"golang.org/x/sync/errgroup"

	"podium/audit"
	"podium/board"
	"podium/redisstore"
)

// startJobs runs the store's background work in g until ctx ends: the
// period schedules FCALL writers read, the Function library where a primary
// lacks it, the rolling windows and the scheduled freezes. Every replica
// runs them; each step is idempotent.
func (a *App) startJobs(ctx context.Context, g *errgroup.Group) {
	store, log, embedded := a.Store, a.Log, a.Config.Embedded()
	g.Go(func() error { refreshSchedules(ctx, store, !embedded, log); return nil })
	g.Go(func() error { rollWindows(ctx, store, log); return nil })
	if !embedded {
		g.Go(func() error { ensureFunctions(ctx, store, 30*time.Second, log); return nil })
	}
	// Scheduled freezes are taken at their time even when nothing writes or
	// reads.
	// Scheduled reveals lift their freeze at their time, audited once by the
	// replica that lifts it.
	auditLog := a.Admin.Audit
	g.Go(func() error {
		store.RunFreezes(ctx, 10*time.Second, func(err error) {
			if ctx.Err() == nil {
				log.Warn("take a scheduled freeze or reveal", slog.Any("error", err))
			}
		}, func(b board.Board) {
			log.Info("revealed at its set time", slog.String("board", b.ID))
			auditLog.RecordDone(ctx, audit.Entry{Actor: "podium:schedule", Action: "board.unfreeze", Board: b.ID, Before: "frozen", After: "live",
				Reason: "revealed at its set time"}, log)
		})
		return nil
	})
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

// randomSecret is n random bytes, base64url-encoded.
func randomSecret(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // the OS has no randomness: nothing is safe to do
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
