package hooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// Store is what the runner reads of the board engine.
type Store interface {
	Board(ctx context.Context, id string) (board.Board, error)
	Top(ctx context.Context, b *board.Board, p board.Period, n int) (board.Page, error)
	LeagueStore
}

// Options configure a Runner; zero values take the defaults.
type Options struct {
	Tick       time.Duration // how often each board is looked at (1s)
	Grace      time.Duration // a period is announced closed this long after its end, so late writes land (0: at once)
	Timeout    time.Duration // per attempt, connecting to the end of the answer's headers (10s)
	RetryFirst time.Duration // wait after a failed first attempt, doubling after each (30s); must exceed Timeout
	RetryMax   time.Duration // longest wait between attempts (1h)
	GiveUp     time.Duration // no attempt starts later than this after the event (24h)
	// Client sends deliveries; nil: NewClient(AllowPrivate, Timeout).
	Client       *http.Client
	AllowPrivate bool
	// Consumer names this replica in the queues' consumer group; empty:
	// host, process id and a random part.
	Consumer string
	Now      func() time.Time
	Logger   *slog.Logger
}

// Runner finds each board's events and delivers them. Every replica runs
// one; Redis decides which replica queues an event (the detection script)
// and which attempts a delivery (the consumer group).
type Runner struct {
	rdb   redis.UniversalClient
	store Store
	reg   *Registry
	opts  Options
	log   *slog.Logger
	sem   chan struct{} // attempts in flight, at most cap

	mu   sync.Mutex
	busy map[string]bool // boards being visited
	wg   sync.WaitGroup
}

// NewRunner makes a runner; it panics on options that would let two
// replicas attempt one delivery at once (RetryFirst not above Timeout).
func NewRunner(rdb redis.UniversalClient, store Store, reg *Registry, opts Options) *Runner {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&opts.Tick, time.Second)
	def(&opts.Timeout, 10*time.Second)
	def(&opts.RetryFirst, 30*time.Second)
	def(&opts.RetryMax, time.Hour)
	def(&opts.GiveUp, 24*time.Hour)
	if opts.RetryFirst <= opts.Timeout {
		panic(fmt.Sprintf("hooks: RetryFirst (%s) must exceed Timeout (%s): an attempt still in flight would be claimed again", opts.RetryFirst, opts.Timeout))
	}
	if opts.Client == nil {
		opts.Client = NewClient(opts.AllowPrivate, opts.Timeout)
	}
	if opts.Consumer == "" {
		host, _ := os.Hostname()
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		opts.Consumer = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Runner{rdb: rdb, store: store, reg: reg, opts: opts, log: opts.Logger, sem: make(chan struct{}, 32), busy: map[string]bool{}}
}

// Run visits every board with hooks each Tick until ctx ends, then waits
// for the attempts in flight (each bounded by Timeout).
func (r *Runner) Run(ctx context.Context) {
	t := time.NewTicker(r.opts.Tick)
	defer t.Stop()
	defer r.wg.Wait()
	for {
		if err := r.pass(ctx, false); err != nil && ctx.Err() == nil {
			r.log.Warn("webhooks: list boards", slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Pass visits every board with hooks once and waits for its deliveries.
func (r *Runner) Pass(ctx context.Context) error {
	err := r.pass(ctx, true)
	return err
}

func (r *Runner) pass(ctx context.Context, wait bool) error {
	ids, err := r.rdb.SMembers(ctx, hookedKey).Result()
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		r.mu.Lock()
		if r.busy[id] { // still delivering from an earlier tick (a slow receiver)
			r.mu.Unlock()
			continue
		}
		r.busy[id] = true
		r.mu.Unlock()
		r.wg.Add(1)
		wg.Add(1)
		go func() {
			defer func() {
				r.mu.Lock()
				delete(r.busy, id)
				r.mu.Unlock()
				wg.Done()
				r.wg.Done()
			}()
			if err := r.visit(ctx, id); err != nil && ctx.Err() == nil {
				r.log.Warn("webhooks", slog.String("board", id), slog.Any("error", err))
			}
		}()
	}
	if wait {
		wg.Wait()
	}
	return nil
}

// visit finds a board's events and makes its due deliveries.
func (r *Runner) visit(ctx context.Context, id string) error {
	hs, err := r.reg.List(ctx, id)
	if err != nil {
		return err
	}
	if len(hs) == 0 {
		return r.reg.unindex(ctx, id)
	}
	b, err := r.store.Board(ctx, id)
	if errors.Is(err, board.ErrNotFound) {
		return r.reg.drop(ctx, id, hs) // the board was deleted: its hooks go with it
	}
	if err != nil {
		return err
	}
	hooks := map[string]Hook{}
	enabled := false
	for _, h := range hs {
		if h.BoardCreated != b.Created.UnixMilli() {
			// Registered on an earlier board of this id, deleted since.
			if _, err := r.reg.Delete(ctx, id, h.ID); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			continue
		}
		hooks[h.ID] = h
		enabled = enabled || h.Enabled
	}
	now := r.opts.Now()
	if _, frozen := b.FrozenSince(now); frozen {
		// A frozen board's standings are a secret until the reveal: its
		// events wait, and the first tick after it announces the changes.
		enabled = false
	}
	if enabled {
		if _, err := detect(ctx, r.rdb, &b, now); err != nil {
			return err
		}
		if err := r.closed(ctx, &b, hs, now); err != nil {
			return err
		}
		if err := r.leagueClosed(ctx, &b, hs, now); err != nil {
			return err
		}
		if err := r.heldScores(ctx, &b, hs, now); err != nil {
			return err
		}
	}
	return r.drain(ctx, &b, hooks, id)
}

// closed announces the periods that closed, once their grace has passed.
func (r *Runner) closed(ctx context.Context, b *board.Board, hs []Hook, now time.Time) error {
	marks, err := closedMarks(ctx, r.rdb, b)
	if err != nil {
		return err
	}
	for _, p := range closedDue(b, hs, marks, now, r.opts.Grace) {
		n := 1
		for _, h := range hs {
			if h.Wants(PeriodClosed) && h.Follows(p.Kind) {
				n = max(n, h.Top)
			}
		}
		top, err := r.store.Top(ctx, b, p, min(n, MaxTop))
		if err != nil {
			return fmt.Errorf("hooks: final top of %s of %q: %w", p, b.ID, err)
		}
		if _, err := announceClosed(ctx, r.rdb, b, p, top.Entries, now); err != nil {
			return err
		}
	}
	return nil
}
