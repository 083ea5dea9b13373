package hooks

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"podium/board"
)

// TestEveryRegistryEntry checks each row of IANA's special-purpose address
// registries (and the few other blocks the filter refuses), written out
// again here from the registries, with addresses inside it and whether
// each is public: the first and last address where the row alone decides,
// others where a more specific row, or an IPv4 address carried inside,
// does.
func TestEveryRegistryEntry(t *testing.T) {
	rows := []struct {
		block   string
		samples map[string]bool
	}{
		// iana-ipv4-special-registry
		{"0.0.0.0/8", map[string]bool{"0.0.0.1": false, "0.255.255.255": false}},
		{"0.0.0.0/32", map[string]bool{"0.0.0.0": false}},
		{"10.0.0.0/8", map[string]bool{"10.0.0.0": false, "10.255.255.255": false}},
		{"100.64.0.0/10", map[string]bool{"100.64.0.0": false, "100.127.255.255": false}},
		{"127.0.0.0/8", map[string]bool{"127.0.0.0": false, "127.255.255.255": false}},
		{"169.254.0.0/16", map[string]bool{"169.254.0.0": false, "169.254.169.254": false, "169.254.255.255": false}},
		{"172.16.0.0/12", map[string]bool{"172.16.0.0": false, "172.31.255.255": false}},
		{"192.0.0.0/24", map[string]bool{"192.0.0.11": false, "192.0.0.255": false}},
		{"192.0.0.0/29", map[string]bool{"192.0.0.0": false, "192.0.0.7": false}},
		{"192.0.0.8/32", map[string]bool{"192.0.0.8": false}},
		{"192.0.0.9/32", map[string]bool{"192.0.0.9": true}},
		{"192.0.0.10/32", map[string]bool{"192.0.0.10": true}},
		{"192.0.0.170/32", map[string]bool{"192.0.0.170": false}},
		{"192.0.0.171/32", map[string]bool{"192.0.0.171": false}},
		{"192.0.2.0/24", map[string]bool{"192.0.2.0": false, "192.0.2.255": false}},
		{"192.31.196.0/24", map[string]bool{"192.31.196.0": true, "192.31.196.255": true}},
		{"192.52.193.0/24", map[string]bool{"192.52.193.0": true, "192.52.193.255": true}},
		{"192.88.99.0/24", map[string]bool{"192.88.99.0": false, "192.88.99.255": false}},
		{"192.88.99.2/32", map[string]bool{"192.88.99.2": false}},
		{"192.168.0.0/16", map[string]bool{"192.168.0.0": false, "192.168.255.255": false}},
		{"192.175.48.0/24", map[string]bool{"192.175.48.0": true, "192.175.48.255": true}},
		{"198.18.0.0/15", map[string]bool{"198.18.0.0": false, "198.18.0.1": false, "198.19.255.255": false}},
		{"198.51.100.0/24", map[string]bool{"198.51.100.0": false, "198.51.100.255": false}},
		{"203.0.113.0/24", map[string]bool{"203.0.113.0": false, "203.0.113.255": false}},
		{"240.0.0.0/4", map[string]bool{"240.0.0.0": false, "255.255.255.254": false}},
		{"255.255.255.255/32", map[string]bool{"255.255.255.255": false}},

		// iana-ipv6-special-registry
		{"::1/128", map[string]bool{"::1": false}},
		{"::/128", map[string]bool{"::": false}},
		// Mapped addresses are their IPv4 address, where Go connects.
		{"::ffff:0:0/96", map[string]bool{"::ffff:0.0.0.0": false, "::ffff:127.0.0.1": false, "::ffff:10.1.2.3": false, "::ffff:8.8.8.8": true}},
		// Reachable, so the IPv4 address inside decides.
		{"64:ff9b::/96", map[string]bool{"64:ff9b::8.8.8.8": true, "64:ff9b::a9fe:a9fe": false, "64:ff9b::7f00:1": false, "64:ff9b::": false}},
		{"64:ff9b:1::/48", map[string]bool{"64:ff9b:1::": false, "64:ff9b:1::808:808": false, "64:ff9b:1:ffff:ffff:ffff:ffff:ffff": false}},
		{"100::/64", map[string]bool{"100::": false, "100::1": false, "100::ffff:ffff:ffff:ffff": false}},
		{"100:0:0:1::/64", map[string]bool{"100:0:0:1::": false, "100::1:ffff:ffff:ffff:ffff": false}},
		{"2001::/23", map[string]bool{"2001:100::": false, "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff": false, "2001:1::4": false, "2001:4:113::": false}},
		// Teredo: its server's and (inverted) client's IPv4 addresses are
		// inside; N/A, so refused even when both are public.
		{"2001::/32", map[string]bool{"2001::": false, "2001:0:808:808::f7f7:f7f7": false, "2001:0:ffff:ffff:ffff:ffff:ffff:ffff": false}},
		{"2001:1::1/128", map[string]bool{"2001:1::1": true}},
		{"2001:1::2/128", map[string]bool{"2001:1::2": true}},
		{"2001:1::3/128", map[string]bool{"2001:1::3": true}},
		{"2001:2::/48", map[string]bool{"2001:2::": false, "2001:2:0:ffff:ffff:ffff:ffff:ffff": false}},
		{"2001:3::/32", map[string]bool{"2001:3::": true, "2001:3:ffff:ffff:ffff:ffff:ffff:ffff": true}},
		{"2001:4:112::/48", map[string]bool{"2001:4:112::": true, "2001:4:112:ffff:ffff:ffff:ffff:ffff": true}},
		{"2001:10::/28", map[string]bool{"2001:10::": false, "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff": false}},
		{"2001:20::/28", map[string]bool{"2001:20::": true, "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff": true}},
		{"2001:30::/28", map[string]bool{"2001:30::": true, "2001:3f:ffff:ffff:ffff:ffff:ffff:ffff": true}},
		{"2001:db8::/32", map[string]bool{"2001:db8::": false, "2001:db8::1": false, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff": false}},
		// 6to4: an IPv4 address inside; N/A, so refused even when it is public.
		{"2002::/16", map[string]bool{"2002::": false, "2002:7f00:1::1": false, "2002:808:808::1": false, "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff": false}},
		{"2620:4f:8000::/48", map[string]bool{"2620:4f:8000::": true, "2620:4f:8000:ffff:ffff:ffff:ffff:ffff": true}},
		{"3fff::/20", map[string]bool{"3fff::": false, "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff": false}},
		{"5f00::/16", map[string]bool{"5f00::": false, "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff": false}},
		{"fc00::/7", map[string]bool{"fc00::": false, "fd00::1": false, "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff": false}},
		{"fe80::/10", map[string]bool{"fe80::": false, "fe80::1": false, "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff": false}},

		// Other registries.
		{"224.0.0.0/4", map[string]bool{"224.0.0.0": false, "239.255.255.255": false}},
		{"ff00::/8", map[string]bool{"ff00::": false, "ff02::1": false, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff": false}},
		// Outside 2000::/3: reserved, IPv4-compatible (the IPv4 address
		// inside decides nothing: refused either way) and site-local.
		{"::/0", map[string]bool{"::2": false, "::7f00:1": false, "::808:808": false, "::ffff:0:808:808": false, "4000::1": false, "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff": false, "e000::": false}},
		{"fec0::/10", map[string]bool{"fec0::": false, "fec0::1": false, "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff": false}},
		{"2000::/3", map[string]bool{"2000::": true, "2606:4700::1111": true, "2a00:1450:4001::1": true, "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff": true}},
	}
	var tested, table []string
	for _, r := range rows {
		tested = append(tested, netip.MustParsePrefix(r.block).String())
		for addr, want := range r.samples {
			a := netip.MustParseAddr(addr)
			if !netip.MustParsePrefix(r.block).Contains(a) {
				t.Errorf("%s: the sample %s is not in the block", r.block, addr)
			}
			if got := Public(a); got != want {
				b, _ := blockOf(a.Unmap())
				t.Errorf("%s: Public(%s) = %v, want %v (decided by %s %s)", r.block, addr, got, want, b.Prefix, b.Name)
			}
		}
	}
	for _, b := range specialBlocks {
		table = append(table, b.Prefix.String())
		if b.Name == "" || b.Ref == "" || b.Prefix != b.Prefix.Masked() {
			t.Errorf("row %s: name %q, reference %q: both needed, and the block masked", b.Prefix, b.Name, b.Ref)
		}
	}
	slices.Sort(tested)
	slices.Sort(table)
	if !slices.Equal(tested, table) {
		t.Fatalf("the table's blocks and the test's differ:\ntable %v\ntest  %v", table, tested)
	}
	// Public addresses, some just outside a block.
	for _, a := range []string{"8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "198.20.0.0", "3fff:1000::"} {
		if !Public(netip.MustParseAddr(a)) {
			t.Errorf("Public(%s) = false: a public address refused", a)
		}
	}
	// Every IPv4 block that is not public stays so wrapped in IPv6, in
	// each form that carries it (mapped, NAT64, compatible, 6to4).
	for _, b := range specialBlocks {
		if !b.Prefix.Addr().Is4() || b.Global == global {
			continue
		}
		v4 := b.Prefix.Addr().As4()
		for _, wrapped := range []string{
			netip.AddrFrom16([16]byte{10: 0xff, 11: 0xff, 12: v4[0], 13: v4[1], 14: v4[2], 15: v4[3]}).String(),
			fmt.Sprintf("64:ff9b::%d.%d.%d.%d", v4[0], v4[1], v4[2], v4[3]),
			fmt.Sprintf("::%d.%d.%d.%d", v4[0], v4[1], v4[2], v4[3]),
			fmt.Sprintf("2002:%02x%02x:%02x%02x::1", v4[0], v4[1], v4[2], v4[3]),
		} {
			if Public(netip.MustParseAddr(wrapped)) {
				t.Errorf("%s (%s, %s) is public", wrapped, b.Prefix, b.Name)
			}
		}
	}
}

// The addresses the review found delivered to, and the usual ones: refused
// by the dialer, which sees the address after DNS.
func TestDialerRefusesNonPublicAddresses(t *testing.T) {
	for _, addr := range []string{
		"[::7f00:1]:443", "[fec0::1]:443", "198.18.0.1:443", "192.0.0.170:443", "[2001:db8::1]:443", "[100::1]:443",
		"127.0.0.1:443", "[::1]:443", "10.0.0.1:38190", "192.168.1.1:443", "169.254.169.254:80", "100.64.0.1:443",
		"0.0.0.0:443", "[::]:443", "224.0.0.1:443", "[ff02::1]:443", "255.255.255.255:443", "[fe80::1%eth0]:443",
		"[64:ff9b::a9fe:a9fe]:80", "[2002:a9fe:a9fe::1]:80", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]:443", "not an address",
	} {
		if err := refusePrivate("tcp", addr, nil); !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("connect to %s: %v, want ErrPrivateAddress", addr, err)
		}
	}
	for _, addr := range []string{"8.8.8.8:443", "[2606:4700::1111]:443", "[64:ff9b::808:808]:443"} {
		if err := refusePrivate("tcp", addr, nil); err != nil {
			t.Errorf("connect to %s: %v", addr, err)
		}
	}
	// Through the client: an IPv4-compatible loopback literal, and a name
	// that resolves to loopback.
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	for _, u := range []string{srv.URL, "https://[::7f00:1]:" + port, "https://localhost:" + port} {
		if _, err := NewClient(false, 5*time.Second).Post(u, "application/json", nil); !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("delivery to %s: %v, want ErrPrivateAddress", u, err)
		}
	}
}

// Registration refuses what is plainly not public before any DNS: IP
// addresses outside the public internet, and local names.
func TestRegistrationRefusesLocalHosts(t *testing.T) {
	b := &board.Board{ID: "b", Periods: []board.Kind{board.AllTime}}
	check := func(u string, allowPrivate bool) string {
		t.Helper()
		_, err := Input{URL: u, Events: []Event{NewLeader}, AllPeriods: true, Top: 1}.Check(b, allowPrivate)
		var bad *InvalidError
		if errors.As(err, &bad) {
			if len(bad.Fields) != 1 || bad.Fields["url"] == "" {
				t.Errorf("%s: %v, want an error at url only", u, err)
			}
			return bad.Fields["url"]
		}
		if err != nil {
			t.Errorf("%s: %v", u, err)
		}
		return ""
	}
	for _, u := range []string{
		"https://127.0.0.1/h", "https://[::1]/h", "https://10.0.0.1/h", "https://192.168.1.10:8443/h", "https://172.16.5.4/h",
		"https://169.254.169.254/latest/meta-data/", "https://100.64.0.1/h", "https://0.0.0.0/h", "https://[::]/h",
		"https://[::7f00:1]/h", "https://[fec0::1]/h", "https://198.18.0.1/h", "https://192.0.0.170/h", "https://[2001:db8::1]/h",
		"https://[100::1]/h", "https://[::ffff:127.0.0.1]/h", "https://[64:ff9b::a9fe:a9fe]/h", "https://[fe80::1%25eth0]/h",
		"https://[fd12:3456::1]/h", "https://224.0.0.1/h", "https://255.255.255.255/h",
		"https://localhost/h", "https://LocalHost./h", "https://localhost:8443/h", "https://api.localhost/h",
		"https://127.1/h", "https://2130706433/h", "https://0x7f000001/h", "https://0177.0.0.1/h", "https://10.1/h",
		"https://metadata/computeMetadata/v1/", "https://redis:6379/", "https://metadata.google.internal/h",
		"https://printer.local/h", "https://nas.home.arpa/h", "https://box.localdomain/h", "https://router.lan/h", "https://x.invalid/h",
		"https://localhost../h", "https://foo.ｌｏｃａｌ/h", "https://127.0.0.１/h", "https://ｌｏｃａｌｈｏｓｔ/h",
	} {
		if msg := check(u, false); msg == "" {
			t.Errorf("%s was accepted", u)
		}
		if msg := check(u, true); msg != "" {
			t.Errorf("%s with private addresses allowed: %s", u, msg)
		}
	}
	for _, u := range []string{
		"https://hooks.example.com/h", "https://8.8.8.8/h", "https://[2606:4700::1111]/h", "https://xn--mnchen-3ya.de/h",
		"https://hooks.example.com./h", "https://a.b.example.co.uk:8443/h?token=x", "https://192.0.0.9/h", "https://localhost.example.com/h",
	} {
		if msg := check(u, false); msg != "" {
			t.Errorf("%s: %s", u, msg)
		}
	}
}
