package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
)

var srv *redistest.Server

// redisDBs is how many logical databases the package's Redis has: one for
// each test that runs at a time, and more.
const redisDBs = 64

// freeDBs holds the numbers of the logical databases no test is using.
var freeDBs = make(chan int, redisDBs)

// TestMain starts the package's Redis. Each test's fixture has a logical
// database of its own, so the tests that wait on real backoffs (Redis
// counts a delivery's idle time: no test clock moves it) run in parallel.
func TestMain(m *testing.M) {
	s, err := redistest.StartWith("--databases", strconv.Itoa(redisDBs))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv = s
	for n := range redisDBs {
		freeDBs <- n
	}
	code := m.Run()
	s.Close()
	os.Exit(code)
}

// clock is a settable test clock.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock { c := &clock{}; c.Set(t); return c }

func (c *clock) Now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Set(t time.Time)     { c.ns.Store(t.UnixNano()) }
func (c *clock) Add(d time.Duration) { c.ns.Add(int64(d)) }

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func boardID(t testing.TB) string {
	id := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(id) > 60 {
		id = strings.TrimLeft(id[len(id)-60:], "-_")
	}
	return id
}

// delivery is what the receiver got.
type delivery struct {
	Header   http.Header
	Body     []byte
	Payload  Payload
	Verified bool
}

// receiver is a local HTTPS endpoint that checks each delivery's signature
// and answers with the status its answer func picks.
type receiver struct {
	srv    *httptest.Server
	secret atomic.Value // string
	answer func(n int, d delivery) int
	now    atomic.Value // func() time.Time: the runner's clock, to check timestamps with
	mu     sync.Mutex
	got    []delivery
}

func newReceiver(t *testing.T, answer func(n int, d delivery) int) *receiver {
	t.Helper()
	r := &receiver{answer: answer}
	r.secret.Store("")
	r.now.Store(time.Now)
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		d := delivery{Header: req.Header.Clone(), Body: body}
		d.Verified = Verify(r.secret.Load().(string), req.Header.Get(HeaderTimestamp), req.Header.Get(HeaderSignature), body, r.now.Load().(func() time.Time)(), 5*time.Minute)
		_ = json.Unmarshal(body, &d.Payload)
		r.mu.Lock()
		r.got = append(r.got, d)
		n := len(r.got)
		r.mu.Unlock()
		code := 200
		if r.answer != nil {
			code = r.answer(n, d)
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// client is the production client, trusting the receiver's certificate.
func (r *receiver) client(timeout time.Duration) *http.Client {
	c := NewClient(true, timeout)
	c.Transport.(*http.Transport).TLSClientConfig = r.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	return c
}

type fixture struct {
	t     *testing.T
	ctx   context.Context
	db    int // the test's logical database
	rdb   *redis.Client
	store *redisstore.Store
	reg   *Registry
	clock *clock
	b     board.Board
}

// newFixture makes a board (day, week and all time, higher is better) on
// a logical database of a private Redis that is the test's alone while it
// runs, through a client that fails the test on any script or transaction
// that spans two hash slots.
func newFixture(t *testing.T, start time.Time) *fixture {
	t.Helper()
	n := <-freeDBs
	t.Cleanup(func() { freeDBs <- n }) // after the clients are closed
	rdb := srv.ClientDB(t, n)
	// Every runner visits every board with hooks on its database (the
	// global index): a test's runner must not deliver another test's events
	// (to that test's receiver, closed or not), nor an earlier one's.
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	c := newClock(start)
	f := &fixture{t: t, ctx: context.Background(), db: n, rdb: rdb, clock: c,
		store: redisstore.NewStore(rdb, redisstore.WithClock(c.Now), redisstore.WithDefinitionTTL(0)), reg: NewRegistry(rdb, c.Now, AllowPrivate(true))} // receivers on loopback
	b, err := f.store.CreateBoard(f.ctx, board.Board{ID: boardID(t), Title: "Test", Format: board.Format{Type: board.Decimal, Decimals: 2},
		Order: board.HigherIsBetter, Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly})
	if err != nil {
		t.Fatal(err)
	}
	f.b = b
	return f
}

func (f *fixture) submit(member string, units float64) {
	f.t.Helper()
	if _, err := f.store.Submit(f.ctx, f.b.ID, board.Submission{Member: member, Score: units, Op: board.Set, Name: strings.ToUpper(member)}, board.Author{Actor: "test"}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) hook(r *receiver, in Input) Hook {
	f.t.Helper()
	in.URL = r.srv.URL + "/hook?token=t"
	h, err := f.reg.Create(f.ctx, &f.b, in, "admin:test")
	if err != nil {
		f.t.Fatal(err)
	}
	r.secret.Store(h.Secret)
	r.now.Store(f.clock.Now)
	return h
}

func (f *fixture) runner(r *receiver, opts Options) *Runner {
	if opts.Timeout == 0 {
		opts.Timeout = 2 * time.Second
	}
	if opts.RetryFirst == 0 {
		opts.RetryFirst = 3 * time.Second
	}
	opts.Client = r.client(opts.Timeout)
	if opts.Now == nil {
		opts.Now = f.clock.Now
	}
	return NewRunner(f.rdb, f.store, f.reg, opts)
}

func (f *fixture) pass(rs ...*Runner) {
	f.t.Helper()
	for _, r := range rs {
		if err := r.Pass(f.ctx); err != nil {
			f.t.Fatal(err)
		}
	}
}

// eventually retries cond until it holds or the deadline passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
