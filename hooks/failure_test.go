package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// leaks matches what an attempt's log must never show: an address, a port,
// the resolver, the words of the error it came from.
var leaks = regexp.MustCompile(`\d+\.\d+\.\d+|\[|::|:\d+|lookup|dial|tcp|udp|read |write |x509|127|localhost|nowhere`)

// Attempts that get no answer are logged with a category only; the error
// itself (addresses, ports, the resolver) goes to the server's log, with
// the board and the hook.
func TestAttemptErrorsShowACategoryOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now())
	recv := newReceiver(t, nil)
	port := recv.srv.URL[strings.LastIndexByte(recv.srv.URL, ':')+1:]

	// A resolver that cannot reach its server: every lookup fails at once,
	// naming the server (the machine's, from resolv.conf) in the error.
	var resolverAddr atomic.Value
	resolver := &net.Resolver{PreferGo: true, Dial: func(_ context.Context, network, address string) (net.Conn, error) {
		resolverAddr.Store(address)
		return nil, &net.OpError{Op: "dial", Net: network, Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	}}
	// A port where nothing listens, and one that accepts and never answers.
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedAddr := gone.Addr().String()
	gone.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()

	// Generous timeouts (a TLS handshake under -race on a loaded machine
	// takes its time), but the one that is to run out.
	const timeout, short = 10 * time.Second, time.Second
	public := newClient(false, timeout, resolver) // as in production, with a resolver that fails
	private := recv.client(timeout)               // loopback allowed, trusting the receiver
	untrusting := NewClient(true, timeout)        // loopback allowed, not trusting it
	for _, c := range []struct {
		name, url string
		client    *http.Client
		want      string
	}{
		{"a loopback address", recv.srv.URL + "/h?token=t", public, failRefused},
		{"a name that resolves to loopback", "https://localhost:" + port + "/h", public, failRefused},
		{"an IPv4-compatible loopback address", "https://[::7f00:1]:" + port + "/h", public, failRefused},
		{"a name the resolver cannot answer", "https://nowhere.example/h", public, failDNS},
		{"a port where nothing listens", "https://" + refusedAddr + "/h", private, failConnRefused},
		{"an endpoint that never answers", "https://" + silent.Addr().String() + "/h", recv.client(short), failTimeout},
		{"a certificate not trusted", recv.srv.URL + "/h", untrusting, failTLS},
	} {
		t.Run(c.name, func(t *testing.T) {
			var logs bytes.Buffer
			h, err := f.reg.Create(f.ctx, &f.b, Input{URL: c.url, Events: []Event{NewLeader}, AllPeriods: true, Top: 1}, "admin:test")
			if err != nil {
				t.Fatal(err)
			}
			defer f.reg.Delete(f.ctx, f.b.ID, h.ID)
			if _, err := f.reg.SendTest(f.ctx, f.b.ID, h.ID); err != nil {
				t.Fatal(err)
			}
			r := NewRunner(f.rdb, f.store, f.reg, Options{Now: f.clock.Now, Timeout: c.client.Timeout, RetryFirst: 3 * timeout, Client: c.client,
				Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			if err := r.Pass(f.ctx); err != nil {
				t.Fatal(err)
			}
			as, err := f.reg.Attempts(f.ctx, f.b.ID, h.ID)
			if err != nil || len(as) != 1 {
				t.Fatalf("attempts %+v (%v)", as, err)
			}
			shown, _ := json.Marshal(as)
			if as[0].Error != c.want || as[0].Code != 0 || leaks.MatchString(as[0].Error) ||
				slices.ContainsFunc([]string{":" + port, refusedAddr, silent.Addr().String(), "127.0.0.1", "lookup", "dial", "nowhere"},
					func(s string) bool { return strings.Contains(string(shown), s) }) {
				t.Fatalf("the attempt shows %s, want the error %q and nothing of the network", shown, c.want)
			}
			// The server's log has the detail, with the board and the hook.
			var line struct{ Board, Hook, Failure, Error string }
			for l := range strings.Lines(logs.String()) {
				if strings.Contains(l, `"webhook attempt"`) {
					_ = json.Unmarshal([]byte(l), &line)
				}
			}
			if line.Board != f.b.ID || line.Hook != h.ID || line.Failure != c.want || line.Error == "" || line.Error == c.want ||
				strings.Contains(line.Error, "token=") {
				t.Fatalf("server log %+v, want the board, the hook and the error in full (without the URL)", line)
			}
			if c.want == failDNS {
				server, _ := resolverAddr.Load().(string)
				if server == "" || !strings.Contains(line.Error, "lookup nowhere.example") || strings.Contains(string(shown), server) {
					t.Errorf("the server log's DNS error %q, the resolver %q", line.Error, server)
				}
			}
		})
	}
}

// Errors as the client returns them, wrapped as it wraps them.
func TestDescribe(t *testing.T) {
	wrap := func(err error) error { return &url.Error{Op: "Post", URL: "https://h.example.com/?token=t", Err: err} }
	addr := &net.TCPAddr{IP: net.ParseIP("10.0.0.1"), Port: 38190}
	for _, c := range []struct {
		err  error
		want string
	}{
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Addr: addr, Err: ErrPrivateAddress}), failRefused},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "localhost.", Server: "10.255.255.53:53", IsNotFound: true}}), failDNS},
		{wrap(&net.DNSError{Err: "i/o timeout", Name: "x.example", Server: "10.255.255.53:53", IsTimeout: true}), failDNS},
		{wrap(context.DeadlineExceeded), failTimeout},
		{wrap(&net.OpError{Op: "remote error", Err: errors.New("tls: handshake failure")}), failTLS},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Addr: addr, Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}), failConnRefused},
		{wrap(&net.OpError{Op: "read", Net: "tcp", Addr: addr, Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}}), failConnReset},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Addr: addr, Err: &os.SyscallError{Syscall: "connect", Err: syscall.EHOSTUNREACH}}), failUnreachable},
		{wrap(errors.New("something else at 10.0.0.1:38190")), failConnection},
		{errBadURL, failBadURL},
	} {
		if got := describe(c.err); got != c.want {
			t.Errorf("describe(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	for _, f := range Failures {
		if leaks.MatchString(f) {
			t.Errorf("the category %q looks like an error's text", f)
		}
	}
}

// Attempts logged before the log kept categories show as one.
func TestOldAttemptsShowACategory(t *testing.T) {
	f := newFixture(t, time.Now())
	h, err := f.reg.Create(f.ctx, &f.b, Input{URL: "https://h.example.com/", Events: []Event{NewLeader}, AllPeriods: true, Top: 1}, "admin:test")
	if err != nil {
		t.Fatal(err)
	}
	old := []string{
		"dial tcp 10.0.0.1:38190: refused: not a public address (HOOKS_ALLOW_PRIVATE allows it)",
		"lookup localhost. on 10.255.255.53:53: no such host",
		"timed out",
		"not delivered within 24h0m0s of the event",
		"dial tcp 10.0.0.7:443: connect: connection refused",
		"read tcp 10.0.0.2:51234->10.0.0.7:443: read: connection reset by peer",
	}
	for _, e := range old {
		js, _ := json.Marshal(Attempt{Delivery: "1-0", Outcome: Retrying, Error: e, Attempt: 1})
		if err := f.rdb.RPush(f.ctx, logKey(f.b.ID, h.ID), js).Err(); err != nil {
			t.Fatal(err)
		}
	}
	as, err := f.reg.Attempts(f.ctx, f.b.ID, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range as {
		got = append(got, a.Error)
	}
	want := []string{failRefused, failDNS, failTimeout, failTooLate, failConnRefused, failConnection}
	if !slices.Equal(got, want) {
		t.Fatalf("old attempts show %q, want %q", got, want)
	}
}
