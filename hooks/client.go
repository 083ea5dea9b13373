package hooks

import (
	"errors"
	"fmt"
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
// resolves to a private address is refused too.
func NewClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = refusePrivate
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    5 * time.Second,
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

func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrPrivateAddress, address)
	}
	if !Public(ap.Addr()) {
		// The address stays out of the message: the attempt log, which a
		// board's API key reads, must not answer DNS questions about the
		// private network.
		return ErrPrivateAddress
	}
	return nil
}

var (
	sharedSpace = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT
	// IPv6 prefixes that carry an IPv4 address inside, which may be a
	// private or link-local one (64:ff9b::a9fe:a9fe is 169.254.169.254).
	wrapsIPv4 = []netip.Prefix{
		netip.MustParsePrefix("64:ff9b::/96"),   // NAT64
		netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
		netip.MustParsePrefix("2002::/16"),      // 6to4
		netip.MustParsePrefix("2001::/32"),      // Teredo
	}
)

// Public reports whether a is an address on the public internet.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range wrapsIPv4 {
		if p.Contains(a) {
			return false
		}
	}
	return a.IsValid() && a.IsGlobalUnicast() && !a.IsPrivate() && !sharedSpace.Contains(a) &&
		!(a.Is4() && a.As4()[0] == 0)
}
