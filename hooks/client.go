package hooks

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// NewClient is the HTTP client deliveries go out on. It follows no
// redirects (a 3xx is a failed attempt: the receiver's URL is what the
// admin registered), uses no proxy from the environment, bounds every
// phase of a request, and, unless allowPrivate, refuses to connect to
// loopback, private, link-local and other non-public addresses: whoever
// registers a hook must not be able to make the server probe its own
// network (cloud metadata at 169.254.169.254, an admin port on localhost).
// The address is checked when connecting, after DNS, so a name that
// resolves to a private address is refused too; Public says which
// addresses are public (IANA's special-purpose registries, special.go).
func NewClient(allowPrivate bool, timeout time.Duration) *http.Client {
	return newClient(allowPrivate, timeout, nil)
}

// newClient is NewClient with its own resolver (nil: the system's).
func newClient(allowPrivate bool, timeout time.Duration, resolver *net.Resolver) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Resolver: resolver}
	if !allowPrivate {
		dialer.Control = refusePrivate
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    timeout, // within the attempt's own bound, however loaded the machine
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 16 << 10,
		MaxIdleConns:           32,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        90 * time.Second,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ErrPrivateAddress refuses a delivery to a non-public address.
var ErrPrivateAddress = errors.New("refused: not a public address (HOOKS_ALLOW_PRIVATE allows it)")

// refusePrivate is the dialer's Control: it sees the address about to be
// connected to, after DNS, whatever name led there.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !Public(ap.Addr()) {
		return ErrPrivateAddress
	}
	return nil
}
