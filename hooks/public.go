package hooks

import (
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// Public reports whether a is an address on the public internet: in no
// block of specialBlocks that is not globally reachable (the most specific
// block containing it decides), and, when it carries an IPv4 address
// inside (NAT64, 6to4, Teredo, IPv4-compatible), with that address public
// too. An IPv4-mapped address (::ffff:a.b.c.d) is its IPv4 address: that is
// where Go connects to.
func Public(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.WithZone("").Unmap()
	for _, v4 := range embeddedIPv4(a) {
		if !Public(v4) {
			return false
		}
	}
	b, ok := blockOf(a)
	return !ok || b.Global == global
}

// blockOf is the most specific block of specialBlocks that holds a.
func blockOf(a netip.Addr) (specialBlock, bool) {
	var best specialBlock
	found := false
	for _, b := range specialBlocks {
		if b.Prefix.Contains(a) && (!found || b.Prefix.Bits() > best.Prefix.Bits()) {
			best, found = b, true
		}
	}
	return best, found
}

var (
	nat64      = cidr("64:ff9b::/96")
	sixToFour  = cidr("2002::/16")
	teredo     = cidr("2001::/32")
	compatible = cidr("::/96")
)

// embeddedIPv4 is the IPv4 address (or two, for Teredo: its server's and
// its client's) an IPv6 address of a translation or tunnelling prefix
// carries, which a packet sent to it may end up at.
func embeddedIPv4(a netip.Addr) []netip.Addr {
	if !a.Is6() {
		return nil
	}
	b := a.As16()
	v4 := func(x [4]byte) netip.Addr { return netip.AddrFrom4(x) }
	switch {
	case nat64.Contains(a), compatible.Contains(a):
		return []netip.Addr{v4([4]byte(b[12:16]))}
	case sixToFour.Contains(a):
		return []netip.Addr{v4([4]byte(b[2:6]))}
	case teredo.Contains(a):
		client := [4]byte(b[12:16])
		for i := range client {
			client[i] ^= 0xff // stored inverted (RFC 4380, section 4)
		}
		return []netip.Addr{v4([4]byte(b[4:8])), v4(client)}
	}
	return nil
}

// localHost says why a URL's host (as url.URL.Hostname gives it) is plainly
// not on the public internet, or "" when nothing shows that before DNS: an
// IP address that is not public, a spelling of an IPv4 address other than
// the dotted one (127.1, 2130706433, 0x7f.1, which some resolvers take for
// addresses), a name without a dot (resolved through the server's search
// domains), or a name under a top-level domain kept for local networks.
// Names that resolve to private addresses are refused when delivering,
// after DNS (NewClient).
func localHost(host string) string {
	const msg = "must point at a public address: loopback, private, link-local and other special-purpose addresses are refused"
	if a, err := netip.ParseAddr(host); err == nil {
		if !Public(a) {
			return msg
		}
		return ""
	}
	// As the HTTP client will: the name in ASCII (IDNA, so "ｌｏｃａｌ" and
	// "１２７" read as "local" and "127"), without the root's dots.
	name, err := idna.Lookup.ToASCII(strings.TrimRight(host, "."))
	if err != nil || name == "" {
		return "must be a valid host name"
	}
	name = strings.ToLower(name)
	if a, err := netip.ParseAddr(name); err == nil && !Public(a) {
		return msg
	}
	labels := strings.Split(name, ".")
	last := labels[len(labels)-1]
	switch {
	case numeric(last):
		return "must be a host name or an IP address written in full (a.b.c.d or [IPv6])"
	case len(labels) == 1:
		return "must be a fully qualified host name (with a dot), not a local name"
	}
	for _, suffix := range localSuffixes {
		if name == suffix || strings.HasSuffix(name, "."+suffix) {
			return "names a host on a local network (." + suffix + "); " + msg
		}
	}
	return ""
}

// localSuffixes are names for hosts of local networks, never on the
// public internet: RFC 6761's localhost and invalid, .local (mDNS, RFC
// 6762), .home.arpa (RFC 8375), .internal (reserved by ICANN for private
// use, 2024), and the names commonly given to home and office networks
// that ICANN will not delegate (name collisions: .localdomain, .lan,
// .home, .corp).
var localSuffixes = []string{"localhost", "invalid", "local", "home.arpa", "internal", "localdomain", "lan", "home", "corp"}

// numeric reports whether a label is a number (decimal, octal or 0x hex),
// as no top-level domain is: a host ending with one is an IPv4 address in
// one of inet_aton's spellings.
func numeric(label string) bool {
	if h, ok := strings.CutPrefix(label, "0x"); ok {
		label = h
		return strings.Trim(label, "0123456789abcdef") == ""
	}
	return label != "" && strings.Trim(label, "0123456789") == ""
}
