package webtest

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"podium/app"
	"podium/board"
	"podium/redisstore"
	"podium/web"
)

// Server is Podium built by app.New and served on a loopback port until
// the test ends.
type Server struct {
	T     *testing.T
	App   *app.App
	Store *redisstore.Store
	Admin *web.Admin
	Redis redis.UniversalClient // the app's client
	HTTP  *httptest.Server
	URL   string // of HTTP
}

// Option changes what New builds.
type Option func(*settings)

type settings struct {
	rdb       redis.UniversalClient
	keep      bool
	clock     func() time.Time
	storeOpts []redisstore.Option
	configure []func(*app.Config)
	archive   bool
	live      bool
}

// Client builds the app on rdb rather than on a new client of Redis(t).
func Client(rdb redis.UniversalClient) Option { return func(s *settings) { s.rdb = rdb } }

// KeepData leaves what Redis holds: a second server over the first one's data.
func KeepData() Option { return func(s *settings) { s.keep = true } }

// Clock is the store's clock instead of the default: Now, a millisecond
// later at each call. time.Now for what must agree with Redis TIME (FCALL).
func Clock(now func() time.Time) Option { return func(s *settings) { s.clock = now } }

// StoreOptions adds options of the store.
func StoreOptions(opts ...redisstore.Option) Option {
	return func(s *settings) { s.storeOpts = append(s.storeOpts, opts...) }
}

// Limits sets the API's requests per minute per key and per client
// address (1000 each by default).
func Limits(key, addr int) Option {
	return Configure(func(c *app.Config) { c.KeyLimit, c.AddrLimit = key, addr })
}

// Configure changes the app's configuration (the defaults of every
// setting, the limits above and the Redis in use) before New builds it.
func Configure(f func(*app.Config)) Option {
	return func(s *settings) { s.configure = append(s.configure, f) }
}

// Archive gives the app its archive, an SQLite file of the test's; without
// it the app has none (app.WithoutArchive).
func Archive() Option { return func(s *settings) { s.archive = true } }

// Live runs the app's live hub, ticking every 50 ms, until the test ends;
// without it the pages offer live views that nothing serves.
func Live() Option { return func(s *settings) { s.live = true } }

// New builds Podium with app.New, as the binary does, on the package's
// private Redis (emptied first), with a store on the Now clock, bcrypt at
// its lowest cost, no archive and a quiet log, and serves it.
func New(t *testing.T, opts ...Option) *Server {
	t.Helper()
	var ticks atomic.Int64 // handlers and the hub call the clock from their own goroutines
	s := settings{clock: func() time.Time { return Now.Add(time.Duration(ticks.Add(1)) * time.Millisecond) }}
	for _, o := range opts {
		o(&s)
	}
	if s.rdb == nil {
		s.rdb = Redis(t)
	}
	if !s.keep {
		if err := flushAll(s.rdb); err != nil { // our own private server
			t.Fatal(err)
		}
	}
	cfg := s.config(t)
	appOpts := []app.Option{app.WithRedis(s.rdb), app.WithPasswordCost(bcrypt.MinCost),
		app.WithStoreOptions(append([]redisstore.Option{redisstore.WithClock(s.clock)}, s.storeOpts...)...)}
	if !s.archive {
		appOpts = append(appOpts, app.WithoutArchive())
	}
	a, err := app.New(t.Context(), cfg, Quiet, appOpts...)
	if err != nil {
		t.Fatalf("app.New: %v", err)
	}
	t.Cleanup(a.Close)
	if s.live {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); a.Hub.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	f := &Server{T: t, App: a, Store: a.Store, Admin: a.Admin, Redis: a.Redis}
	f.Serve(a.Server)
	return f
}

// config is the defaults of every setting, as the binary would have them
// with no flags and no environment, then the settings' changes.
func (s *settings) config(t *testing.T) app.Config {
	t.Helper()
	cfg, err := app.ParseConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.KeyLimit, cfg.AddrLimit = 1000, 1000
	// Say which Redis is in use, so that the app does not take it for the
	// embedded store (whose hub waits for messages the store publishes).
	switch c := s.rdb.(type) {
	case *redis.Client:
		cfg.RedisURL = "redis://" + c.Options().Addr
	case *redis.ClusterClient:
		cfg.Redis.ClusterAddrs = c.Options().Addrs
	}
	if s.archive {
		cfg.ArchivePath = filepath.Join(t.TempDir(), "archive.db")
	}
	if s.live {
		cfg.LiveTick = 50 * time.Millisecond
	}
	for _, f := range s.configure {
		f(&cfg)
	}
	return cfg
}

// Serve serves h instead of what is served now, until the test ends: for
// a test that assembles a server of its own (web.New with a fake part)
// over the fixture's store and console.
func (f *Server) Serve(h http.Handler) {
	f.HTTP = httptest.NewServer(h)
	f.URL = f.HTTP.URL
	f.T.Cleanup(f.HTTP.Close)
}

// Board creates def and sets each member's score, in the members' order:
// who reaches a tied score first ranks first.
func (f *Server) Board(def board.Board, scores map[string]float64) *board.Board {
	f.T.Helper()
	b, err := f.Store.CreateBoard(context.Background(), def)
	if err != nil {
		f.T.Fatal(err)
	}
	for _, m := range slices.Sorted(maps.Keys(scores)) {
		if _, err := f.Store.Submit(context.Background(), b.ID, board.Submission{Member: m, Score: scores[m], Op: board.Set}, board.Author{Actor: "test"}); err != nil {
			f.T.Fatal(err)
		}
	}
	return &b
}

// MustBoard is the stored definition of board id; t is the test or
// subtest that asks.
func (f *Server) MustBoard(t testing.TB, id string) *board.Board {
	t.Helper()
	b, err := f.Store.Board(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return &b
}
