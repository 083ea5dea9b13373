package live

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/board"
	"podium/redisstore"
)

// TestPingDropsSilentClient: a client that stops reading answers no pings
// and is dropped; one that reads stays through many pings. The pong timeout
// is generous (a reading client answers in time however loaded the
// machine), and sixty pings long: the reading client, connected first, is
// pinged that many times while the silent one waits to be dropped.
func TestPingDropsSilentClient(t *testing.T) {
	const interval, timeout = 50 * time.Millisecond, 3 * time.Second
	f := newLiveFixture(t, Options{PingInterval: interval, PongTimeout: timeout})
	f.board("pinged", "ann", 1)
	reader := f.dial("board=pinged&period=all")
	reader.until("a snapshot", func(s Snapshot) bool { return s.Total == 1 })
	go func() { // keeps reading, so it answers pings
		for {
			if _, _, err := reader.c.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	readingSince := time.Now()
	f.dial("board=pinged&period=all") // never reads: never answers a ping
	eventually(t, "the silent client to be dropped", func() bool { return f.hub.Stats().SlowDisconnects > 0 })
	if pinged := time.Since(readingSince); pinged < timeout {
		t.Fatalf("the silent client was dropped %v after the reading one connected, before its pong timeout (%v)", pinged, timeout)
	}
	if st := f.hub.Stats(); st.Clients != 1 || st.SlowDisconnects != 1 {
		t.Fatalf("clients %d, dropped %d: want the reading client kept and the silent one dropped", st.Clients, st.SlowDisconnects)
	}
}

// TestShutdownSaysGoingAway: when the hub stops, every client gets a 1001
// close frame, and the hub returns once the handshakes are over.
func TestShutdownSaysGoingAway(t *testing.T) {
	f := newLiveFixture(t, Options{})
	f.board("closing", "ann", 1)
	var clients []*wsClient
	for range 20 {
		ws := f.dial("board=closing&period=all")
		ws.until("a snapshot", func(s Snapshot) bool { return s.Total == 1 })
		clients = append(clients, ws)
	}
	statuses := make(chan websocket.StatusCode, len(clients))
	for _, ws := range clients {
		go func() {
			for {
				if _, _, err := ws.c.Read(context.Background()); err != nil {
					statuses <- websocket.CloseStatus(err)
					return
				}
			}
		}()
	}
	f.stop()
	for range clients {
		select {
		case st := <-statuses:
			if st != websocket.StatusGoingAway {
				t.Errorf("a client saw close status %d, want 1001 going away", st)
			}
		case <-time.After(patience):
			t.Fatal("a client got no close frame")
		}
	}
	// After the stop, a new socket is refused.
	res, err := http.Get(f.http.URL + "/?board=closing&period=all")
	if err == nil {
		res.Body.Close()
	}
	if err != nil || res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a socket after shutdown: %v %v, want 503", res, err)
	}
}

// TestPerAddressLimit: one address holds at most PerAddr sockets; the next
// is refused with 429 before any upgrade, and a closed one frees its place.
func TestPerAddressLimit(t *testing.T) {
	f := newLiveFixture(t, Options{PerAddr: 2})
	f.board("capped", "ann", 1)
	a := f.dial("board=capped&period=all")
	f.dial("board=capped&period=all")
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	_, res, err := websocket.Dial(ctx, strings.Replace(f.http.URL, "http", "ws", 1)+"/?board=capped&period=all", nil)
	if err == nil || res == nil || res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a third socket from one address: %v %v, want 429", res, err)
	}
	if f.hub.Stats().Refused != 1 {
		t.Errorf("refused = %d, want 1", f.hub.Stats().Refused)
	}
	a.c.Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(patience)
	for {
		c, _, err := websocket.Dial(ctx, strings.Replace(f.http.URL, "http", "ws", 1)+"/?board=capped&period=all", nil)
		if err == nil {
			c.CloseNow()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed socket did not free its place: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDefinitionChangeReachesOpenView: an open page follows its board's new
// definition (here a "$" prefix) without a reload.
func TestDefinitionChangeReachesOpenView(t *testing.T) {
	f := newLiveFixture(t, Options{})
	f.board("money", "ann", 999)
	ws := f.dial("board=money&period=all")
	ws.until("ann's plain score", func(s Snapshot) bool { return len(s.Rows) == 1 && s.Rows[0].Score == "999" })
	ctx := context.Background()
	b, err := f.store.Board(ctx, "money")
	if err != nil {
		t.Fatal(err)
	}
	b.Format.Prefix = "$"
	if _, err := f.store.UpdateBoard(ctx, b); err != nil {
		t.Fatal(err)
	}
	ws.until("the new format", func(s Snapshot) bool { return len(s.Rows) == 1 && s.Rows[0].Score == "$999" })
}

// TestSubscriptionRecoversAfterKill: the pattern subscription's connection
// killed in Redis (CLIENT KILL TYPE pubsub) is made anew, and writes after
// it reach the client.
func TestSubscriptionRecoversAfterKill(t *testing.T) {
	f := newLiveFixture(t, Options{PollInterval: time.Minute})
	b := f.board("killed", "ann", 5, "bob", 3)
	ws := f.dial("board=killed&period=all")
	ws.until("a snapshot", func(s Snapshot) bool { return order(s) == "ann:1 bob:2" })
	ctx := context.Background()
	if n, err := f.rdb.ClientKillByFilter(ctx, "TYPE", "pubsub").Result(); err != nil || n < 1 {
		t.Fatalf("CLIENT KILL TYPE pubsub: %d, %v", n, err)
	}
	key := redisstore.ZSetKey(b.ID, board.Period{Kind: board.AllTime})
	// A write while the subscription is down reaches the client through the
	// re-read that follows the new subscription; one after it, through the
	// subscription itself (polling is a minute away).
	f.rdb.ZIncrBy(ctx, key, 10, "bob")
	// That re-read comes with the new subscription: once the client has
	// bob's write, the next one can only come through a notification.
	ws.until("bob's write during the outage", func(s Snapshot) bool { return order(s) == "bob:1 ann:2" })
	f.rdb.ZIncrBy(ctx, key, 20, "ann")
	ws.until("ann's write after it", func(s Snapshot) bool { return order(s) == "ann:1 bob:2" })
}

// TestShutdownWaitsForHandshakes: Run returns only once every client has
// answered its 1001, so the process does not exit under them; clients that
// answer late hold it back, and no socket is left counted. Run gives up on
// them after CloseTimeout: patience here, not the 5 s a loaded machine
// could spend before the clients begin to answer.
func TestShutdownWaitsForHandshakes(t *testing.T) {
	f := newLiveFixture(t, Options{CloseTimeout: patience})
	f.board("closing", "ann", 1)
	var clients []*wsClient
	for range 5 {
		ws := f.dial("board=closing&period=all")
		ws.until("a snapshot", func(s Snapshot) bool { return s.Total == 1 })
		clients = append(clients, ws)
	}
	// Each client answers late: it starts reading (and so answers the close
	// frame) only some time after the stop began, and notes when.
	const late = 300 * time.Millisecond
	var mu sync.Mutex
	var answering []time.Time
	stopping := make(chan struct{})
	for _, ws := range clients {
		go func() {
			<-stopping
			time.Sleep(late) // the behaviour under test: an answer that comes late
			mu.Lock()
			answering = append(answering, time.Now())
			mu.Unlock()
			for {
				if _, _, err := ws.c.Read(context.Background()); err != nil {
					return
				}
			}
		}()
	}
	close(stopping)
	f.stop()
	stopped := time.Now()
	mu.Lock()
	answered := slices.Clone(answering)
	mu.Unlock()
	if len(answered) != len(clients) {
		t.Fatalf("the hub stopped before %d of its %d clients began to answer", len(clients)-len(answered), len(clients))
	}
	for _, at := range answered {
		if at.After(stopped) {
			t.Fatalf("the hub stopped %v before a client began to answer", at.Sub(stopped))
		}
	}
	f.hub.mu.Lock()
	open := len(f.hub.perAddr)
	f.hub.mu.Unlock()
	if open != 0 {
		t.Fatalf("%d addresses still hold sockets after the hub stopped", open)
	}
}

// TestDefinitionChangedJustBeforeAttach: a view opened right after another
// replica changed the definition, while this one's cache still holds the
// old, follows the new one as soon as the cache lets it.
func TestDefinitionChangedJustBeforeAttach(t *testing.T) {
	f := newLiveFixture(t, Options{})
	f.board("later", "ann", 999)
	ctx := context.Background()
	if _, err := f.store.Board(ctx, "later"); err != nil { // this replica caches the old definition
		t.Fatal(err)
	}
	other := redisstore.NewStore(f.rdb) // another replica
	b, err := other.Board(ctx, "later")
	if err != nil {
		t.Fatal(err)
	}
	b.Format.Prefix = "$"
	if _, err := other.UpdateBoard(ctx, b); err != nil {
		t.Fatal(err)
	}
	ws := f.dial("board=later&period=all") // attaches with the cached, old definition
	ws.until("the new format", func(s Snapshot) bool { return len(s.Rows) == 1 && s.Rows[0].Score == "$999" })
}

func TestAddrKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7":            "192.0.2.7",
		"::ffff:192.0.2.7":     "192.0.2.7",
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1": "2001:db8:1:2::/64",
		"not an address":       "not an address",
	} {
		if got := addrKey(in); got != want {
			t.Errorf("addrKey(%q) = %q, want %q", in, got, want)
		}
	}
}
