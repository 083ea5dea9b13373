package live

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
)

// stallProxy forwards TCP connections to a Redis until stall, after which
// it holds every byte either way and closes nothing: the half-open
// connection a network that drops packets leaves behind.
type stallProxy struct {
	l     net.Listener
	mu    sync.Mutex
	open  chan struct{} // closed while bytes flow
	conns []net.Conn
}

func newStallProxy(t *testing.T, addr string) *stallProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{l: l, open: make(chan struct{})}
	close(p.open)
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", addr)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go p.pipe(out, in)
			go p.pipe(in, out)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		p.release()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
	return p
}

func (p *stallProxy) addr() string { return p.l.Addr().String() }

func (p *stallProxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			open := p.open
			p.mu.Unlock()
			<-open
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// stall holds every byte from now on.
func (p *stallProxy) stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open = make(chan struct{})
}

// release lets them flow again.
func (p *stallProxy) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
	default:
		close(p.open)
	}
}

// TestSilentSubscriptionKeepsTheBound: the hub's subscription goes
// half-open (no error, no close: nothing arrives), then another writer
// changes a board. An answer read before the write is never served more
// than a tick after it: the hub stops vouching for its notifications in
// time, not a tick or two later.
func TestSilentSubscriptionKeepsTheBound(t *testing.T) {
	ctx := context.Background()
	direct := srv.Client(t)
	if err := direct.FlushDB(ctx).Err(); err != nil { // our private server
		t.Fatal(err)
	}
	px := newStallProxy(t, srv.Addr)
	rdb := redis.NewClient(&redis.Options{Addr: px.addr()})
	t.Cleanup(func() { rdb.Close() })
	f := newLiveFixtureOn(t, rdb, Options{PollInterval: time.Minute, Tick: 100 * time.Millisecond})
	t.Cleanup(px.release) // before the fixture stops the hub (cleanups run last first)
	tick := f.hub.opts.Tick
	store := redisstore.NewStore(direct) // the cache reads Redis directly; only the hub's subscription stalls
	c := f.hub.NewCache(store)
	b, err := store.CreateBoard(ctx, board.Board{ID: "silent", Title: "Silent", TieBreak: board.ByMember})
	if err != nil {
		t.Fatal(err)
	}
	p := b.Current(board.AllTime, store.Now())
	z := redisstore.ZSetKey(b.ID, p)
	if err := direct.ZAdd(ctx, z, redis.Z{Member: "ann", Score: 5}, redis.Z{Member: "bob", Score: 3}).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the hub vouches for its notifications", f.hub.Fresh)
	// The set-up's notifications may arrive after a first read: wait for
	// an answer served from memory.
	eventually(t, "a page served from memory", func() bool {
		if _, err := c.Page(ctx, &b, p, 0, 10); err != nil {
			t.Fatal(err)
		}
		hits := c.Stats().Hits
		pg, err := c.Page(ctx, &b, p, 0, 10)
		if err != nil || pg.Entries[0].Member != "ann" {
			t.Fatalf("page: %+v, %v", pg, err)
		}
		return c.Stats().Hits > hits && f.hub.Fresh()
	})
	px.stall()
	wrote := time.Now()
	if err := direct.ZIncrBy(ctx, z, 10, "bob").Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the write read through the cache", func() bool {
		start := time.Now()
		pg, err := c.Page(ctx, &b, p, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if pg.Entries[0].Member == "bob" {
			return true
		}
		if late := start.Sub(wrote); late > tick {
			t.Fatalf("the answer from before the write was served %v after it (bound %v), its notification lost on a silent subscription", late, tick)
		}
		return false
	})
}

// TestNotificationsTurnedOffBehindTheHub: another client turns keyspace
// notifications off while the hub is subscribed (an app that sets
// notify-keyspace-events for itself), then a board changes. The hub finds
// them off and turns them on again, and the read cache does not serve the
// answer from before the write on and on.
func TestNotificationsTurnedOffBehindTheHub(t *testing.T) {
	t.Parallel()
	own, err := redistest.StartWith()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(own.Close)
	ctx := context.Background()
	rdb := own.Client(t)
	f := newLiveFixtureOn(t, rdb, Options{PollInterval: time.Hour})
	c := f.hub.NewCache(f.store)
	b := f.board("off", "ann", 5, "bob", 3)
	p := b.Current(board.AllTime, f.store.Now())
	eventually(t, "the hub vouches for its notifications", f.hub.Fresh)
	eventually(t, "a page served from memory", func() bool {
		if _, err := c.Page(ctx, b, p, 0, 10); err != nil {
			t.Fatal(err)
		}
		hits := c.Stats().Hits
		pg, err := c.Page(ctx, b, p, 0, 10)
		if err != nil || pg.Entries[0].Member != "ann" {
			t.Fatalf("page: %+v, %v", pg, err)
		}
		return c.Stats().Hits > hits && f.hub.Fresh()
	})
	if err := own.Client(t).ConfigSet(ctx, "notify-keyspace-events", "").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ZIncrBy(ctx, redisstore.ZSetKey(b.ID, p), 10, "bob").Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "notifications on again", func() bool {
		flags, err := rdb.ConfigGet(ctx, "notify-keyspace-events").Result()
		on := flags["notify-keyspace-events"]
		return err == nil && strings.Contains(on, "K") && strings.Contains(on, "z")
	})
	eventually(t, "the write read through the cache", func() bool {
		pg, err := c.Page(ctx, b, p, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		return pg.Entries[0].Member == "bob" && f.hub.Fresh()
	})
}
