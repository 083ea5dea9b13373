package hooks

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

func TestSignature(t *testing.T) {
	// The same HMAC computed elsewhere (Python's hmac module).
	const want = "v1=f2a0e9cc79f6a8d5063bc6718561e872509983827740ea4ee5622da1c7e8d2b4"
	body := []byte(`{"id":"x"}`)
	if got := Sign("whsec_test", 1767225600, body); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
	at := time.Unix(1767225600, 0)
	for _, c := range []struct {
		name, secret, ts, sig string
		body                  string
		now                   time.Time
		ok                    bool
	}{
		{"good", "whsec_test", "1767225600", want, `{"id":"x"}`, at.Add(time.Minute), true},
		{"one of several", "whsec_test", "1767225600", "v1=00, " + want, `{"id":"x"}`, at, true},
		{"other secret", "whsec_other", "1767225600", want, `{"id":"x"}`, at, false},
		{"changed body", "whsec_test", "1767225600", want, `{"id":"y"}`, at, false},
		{"changed timestamp", "whsec_test", "1767225601", want, `{"id":"x"}`, at, false},
		{"too old", "whsec_test", "1767225600", want, `{"id":"x"}`, at.Add(6 * time.Minute), false},
		{"from the future", "whsec_test", "1767225600", want, `{"id":"x"}`, at.Add(-6 * time.Minute), false},
		{"no timestamp", "whsec_test", "", want, `{"id":"x"}`, at, false},
	} {
		if got := Verify(c.secret, c.ts, c.sig, []byte(c.body), c.now, 5*time.Minute); got != c.ok {
			t.Errorf("%s: Verify = %v, want %v", c.name, got, c.ok)
		}
	}
}

func TestRetriesAfter500s(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now())
	recv := newReceiver(t, func(n int, _ delivery) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	h := f.hook(recv, Input{Events: []Event{PeriodClosed}, AllPeriods: true, Top: 3})
	// A first attempt that times out (its TLS handshake, under -race on a
	// loaded machine) never reaches the receiver, and every count below is
	// off: a generous timeout. The backoff must exceed it, and is real time
	// (Redis counts it): the test waits three times that, beside others.
	const first = 3 * time.Second
	r := f.runner(recv, Options{Now: time.Now, Timeout: first - 100*time.Millisecond, RetryFirst: first, RetryMax: 4 * first})
	if _, err := f.reg.SendTest(f.ctx, f.b.ID, h.ID); err != nil {
		t.Fatal(err)
	}
	// Each attempt is made within the pass that first shows it; its claim
	// came after that pass began. So the gap between two attempts is at
	// least the backoff counted from the start of the earlier one's pass to
	// the end of the later one's (when the test sees an attempt says nothing:
	// the first one includes a TLS handshake, whatever the load adds).
	type span struct{ from, to time.Time }
	var passes []span
	eventually(t, time.Minute, "three attempts", func() bool {
		from := time.Now()
		f.pass(r)
		if n := len(recv.deliveries()); n > len(passes) {
			passes = append(passes, span{from, time.Now()})
		}
		return len(recv.deliveries()) >= 3
	})
	f.pass(r)
	got := recv.deliveries()
	if len(got) != 3 {
		t.Fatalf("%d attempts, want 3", len(got))
	}
	for i, d := range got {
		if !d.Verified || d.Header.Get(HeaderDelivery) != got[0].Header.Get(HeaderDelivery) || d.Header.Get(HeaderAttempt) != strconv.Itoa(i+1) || d.Payload.Type != Ping {
			t.Fatalf("attempt %d: verified %v, headers %v", i+1, d.Verified, d.Header)
		}
	}
	// Backoff: RetryFirst after the first, twice that after the second
	// (lower bounds only; Redis counts idle time in whole milliseconds).
	if len(passes) != 3 {
		t.Fatalf("attempts seen in %d passes, want one each", len(passes))
	}
	if gap := passes[1].to.Sub(passes[0].from); gap < first-5*time.Millisecond {
		t.Errorf("second attempt at most %s after the first, want at least %s", gap, first)
	}
	if gap := passes[2].to.Sub(passes[1].from); gap < 2*first-5*time.Millisecond {
		t.Errorf("third attempt at most %s after the second, want at least %s", gap, 2*first)
	}
	log, err := f.reg.Attempts(f.ctx, f.b.ID, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, a := range log {
		seen = append(seen, fmt.Sprintf("%d %s %d", a.Attempt, a.Outcome, a.Code))
	}
	if strings.Join(seen, ", ") != "3 delivered 204, 2 retrying 500, 1 retrying 500" {
		t.Fatalf("log: %s", strings.Join(seen, ", "))
	}
	if n, _ := f.rdb.XPending(f.ctx, queueKey(f.b.ID), group).Result(); n.Count != 0 {
		t.Fatalf("%d deliveries still pending", n.Count)
	}
}

func TestGivesUpAndTimesOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now())
	// The first attempt gets no answer until the test ends: it can only
	// time out, however long that takes.
	never := make(chan struct{})
	recv := newReceiver(t, func(n int, _ delivery) int {
		if n == 1 {
			<-never
		}
		return http.StatusBadGateway
	})
	t.Cleanup(func() { close(never) }) // before the receiver closes: it waits for its handlers
	h := f.hook(recv, Input{Events: []Event{NewLeader}, AllPeriods: true, Top: 1})
	// The runner reads the fixture's clock (the event's time too), which
	// the test moves a second per attempt: whether an attempt is made or
	// given up on depends on no real delay (the backoff between attempts
	// is still real: Redis counts it). The timeout is generous, so that
	// the later attempts are answered within it on a loaded machine.
	r := f.runner(recv, Options{Timeout: 2900 * time.Millisecond, RetryFirst: 3 * time.Second,
		RetryMax: 3 * time.Second, GiveUp: 4500 * time.Millisecond})
	if _, err := f.reg.SendTest(f.ctx, f.b.ID, h.ID); err != nil {
		t.Fatal(err)
	}
	queued := f.clock.Now()
	var log []Attempt
	eventually(t, time.Minute, "giving up", func() bool {
		f.pass(r)
		log, _ = f.reg.Attempts(f.ctx, f.b.ID, h.ID)
		// Attempt n+1 starts n seconds after the event: the third (at 2s,
		// its retry due at 5s, past 4.5s) is the last.
		f.clock.Set(queued.Add(time.Duration(len(log)) * time.Second))
		return len(log) > 0 && log[0].Outcome == GaveUp
	})
	last := log[len(log)-1]
	if last.Attempt != 1 || last.Error != failTimeout || last.Code != 0 || last.Outcome != Retrying {
		t.Fatalf("first attempt: %+v", last)
	}
	if log[0].Code != http.StatusBadGateway || log[0].Attempt != 3 {
		t.Fatalf("log: %+v", log)
	}
	// Off the pending list, the delivery cannot be claimed again.
	if n, _ := f.rdb.XPending(f.ctx, queueKey(f.b.ID), group).Result(); n.Count != 0 {
		t.Fatalf("%d deliveries still pending after giving up", n.Count)
	}
	before := len(recv.deliveries())
	f.pass(r)
	if len(recv.deliveries()) != before {
		t.Fatal("an attempt after giving up")
	}
}

// Two replicas (runners with clients of their own) share one Redis while
// scores change: every change is announced once, and every attempt of a
// delivery is made once, by one of them. The receiver fails every first
// attempt, so each retry is claimed by replicas competing for it.
func TestTwoReplicasDeliverEachEventOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, wednesday)
	recv := newReceiver(t, func(_ int, d delivery) int {
		if d.Header.Get(HeaderAttempt) == "1" {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	f.hook(recv, Input{Events: []Event{NewLeader, TopEntered}, Periods: []board.Kind{board.AllTime}, Top: 3})
	replica := func(name string) *Runner {
		rdb := srv.ClientDB(t, f.db)
		reg := NewRegistry(rdb, f.clock.Now)
		// An attempt that times out (TLS handshakes under -race on a loaded
		// machine) is made again, and the counts below are off: generous
		// timeouts. The retry is three seconds away (real time: Redis
		// counts it).
		const timeout = 2900 * time.Millisecond
		return NewRunner(rdb, redisstore.NewStore(rdb, redisstore.WithClock(f.clock.Now)), reg, Options{Now: f.clock.Now, Consumer: name,
			Timeout: timeout, RetryFirst: 3 * time.Second, Client: recv.client(timeout)})
	}
	a, b := replica("a"), replica("b")
	f.pass(a) // the first look
	ctx, stop := context.WithCancel(f.ctx)
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }() // also when the test fails: no t.Error after it ends
	for _, r := range []*Runner{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := r.Pass(ctx); err != nil && ctx.Err() == nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 150 {
		f.submit(fmt.Sprintf("m%d", rng.IntN(8)), float64(rng.IntN(1000)))
		// Changes spread out between the runners' passes, as real ones are
		// (the pace of the writer, not a wait for anything).
		time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
	}
	eventually(t, time.Minute, "every delivery to be made", func() bool {
		n, err := f.rdb.XPending(f.ctx, queueKey(f.b.ID), group).Result()
		return err == nil && n.Count == 0 && len(recv.deliveries()) > 0
	})
	// A retry claimed twice would be in flight now; a pass waits for its
	// attempts, even as it stops: once both runners are done, it has arrived.
	stop()
	wg.Wait()
	queued, err := f.rdb.XLen(f.ctx, queueKey(f.b.ID)).Result()
	if err != nil {
		t.Fatal(err)
	}
	got := recv.deliveries()
	if queued < 10 || int64(len(got)) != 2*queued {
		t.Fatalf("%d deliveries queued, %d attempts received: want many, each attempted twice", queued, len(got))
	}
	seen := map[string]bool{}
	var leaders []Payload
	for _, d := range got {
		id := d.Header.Get(HeaderDelivery) + " attempt " + d.Header.Get(HeaderAttempt)
		if seen[id] {
			t.Fatalf("delivery %s received twice", id)
		}
		seen[id] = true
		if d.Header.Get(HeaderAttempt) == "2" {
			continue
		}
		if !d.Verified {
			t.Fatalf("delivery %s does not verify", id)
		}
		if d.Payload.Type == NewLeader {
			leaders = append(leaders, d.Payload)
		}
	}
	// Leader events chain: each one's previous leader is the one the event
	// before announced. A change seen by both replicas would break it.
	seq := func(p Payload) int { n, _ := strconv.Atoi(p.ID[strings.LastIndexByte(p.ID, '-')+1:]); return n }
	sort.Slice(leaders, func(i, j int) bool { return seq(leaders[i]) < seq(leaders[j]) })
	if len(leaders) < 2 {
		t.Fatalf("only %d leader changes", len(leaders))
	}
	for i := 1; i < len(leaders); i++ {
		if leaders[i].Previous == nil || leaders[i].Previous.Member != leaders[i-1].Leader.Member || leaders[i].Leader.Member == leaders[i-1].Leader.Member {
			t.Fatalf("leader event %d (%+v) does not follow %+v", i, leaders[i], leaders[i-1])
		}
	}
	if n, _ := f.rdb.XPending(f.ctx, queueKey(f.b.ID), group).Result(); n.Count != 0 {
		t.Fatalf("%d deliveries still pending", n.Count)
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	f := newFixture(t, time.Now())
	target := newReceiver(t, nil)
	recv := newReceiver(t, nil)
	recv.srv.Config.Handler = http.RedirectHandler(target.srv.URL, http.StatusTemporaryRedirect)
	h := f.hook(recv, Input{Events: []Event{NewLeader}, AllPeriods: true, Top: 1})
	r := f.runner(recv, Options{Now: time.Now})
	if _, err := f.reg.SendTest(f.ctx, f.b.ID, h.ID); err != nil {
		t.Fatal(err)
	}
	f.pass(r)
	log, _ := f.reg.Attempts(f.ctx, f.b.ID, h.ID)
	if len(log) != 1 || log[0].Code != http.StatusTemporaryRedirect || log[0].Outcome != Retrying || len(target.deliveries()) != 0 {
		t.Fatalf("log %+v, redirect target got %d", log, len(target.deliveries()))
	}
}

func TestPrivateAddressesRefused(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	_, err := NewClient(false, time.Second).Post(srv.URL, "application/json", nil)
	if !errors.Is(err, ErrPrivateAddress) {
		t.Fatalf("delivery to %s: %v, want ErrPrivateAddress", srv.URL, err)
	}
	for addr, public := range map[string]bool{"127.0.0.1": false, "10.1.2.3": false, "192.168.0.1": false, "169.254.169.254": false,
		"100.64.0.1": false, "0.0.0.0": false, "::1": false, "fe80::1": false, "fd00::1": false, "::ffff:127.0.0.1": false,
		"64:ff9b::a9fe:a9fe": false, "2002:a9fe:a9fe::1": false, "2001:0:4136:e378::1": false,
		"8.8.8.8": true, "2606:4700::1111": true} {
		if got := Public(netip.MustParseAddr(addr)); got != public {
			t.Errorf("Public(%s) = %v, want %v", addr, got, public)
		}
	}
}
