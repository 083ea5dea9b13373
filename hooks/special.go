package hooks

import "net/netip"

// reach is an address block's "Globally Reachable" column in IANA's
// special-purpose address registries.
type reach int8

const (
	notGlobal     reach = iota // False
	global                     // True
	notApplicable              // N/A, or left blank (deprecated blocks): not reachable either
)

// specialBlock is one row: an address block, its name and the document
// that reserved it, and whether it is globally reachable.
type specialBlock struct {
	Prefix netip.Prefix
	Name   string
	Ref    string
	Global reach
}

// specialBlocks is every entry of the two IANA special-purpose address
// registries, as published when this was written:
//
//   - IANA IPv4 Special-Purpose Address Registry (iana-ipv4-special-registry),
//     last updated 2020-09-04;
//   - IANA IPv6 Special-Purpose Address Registry (iana-ipv6-special-registry),
//     last updated 2025-04 (the row for 100:0:0:1::/64, RFC 9780),
//
// https://www.iana.org/assignments/iana-ipv4-special-registry/ and
// https://www.iana.org/assignments/iana-ipv6-special-registry/, written by
// hand, in the registries' order, followed by the few blocks the
// delivery filter refuses that live in other registries (marked below).
// Where blocks nest, the most specific one decides (2001:1::1/128 is
// reachable inside 2001::/23, which is not). An address in no block is
// public for IPv4; for IPv6 the last rows say that only 2000::/3 is.
//
// When IANA adds a row, add it here, and to the test's copy in
// public_test.go (TestEveryRegistryEntry), which checks each row by hand.
var specialBlocks = []specialBlock{
	// IPv4.
	{cidr("0.0.0.0/8"), `"This network"`, "RFC 791, section 3.2", notGlobal},
	{cidr("0.0.0.0/32"), `"This host on this network"`, "RFC 1122, section 3.2.1.3", notGlobal},
	{cidr("10.0.0.0/8"), "Private-Use", "RFC 1918", notGlobal},
	{cidr("100.64.0.0/10"), "Shared Address Space", "RFC 6598", notGlobal},
	{cidr("127.0.0.0/8"), "Loopback", "RFC 1122, section 3.2.1.3", notGlobal},
	{cidr("169.254.0.0/16"), "Link Local", "RFC 3927", notGlobal},
	{cidr("172.16.0.0/12"), "Private-Use", "RFC 1918", notGlobal},
	{cidr("192.0.0.0/24"), "IETF Protocol Assignments", "RFC 6890, section 2.1", notGlobal},
	{cidr("192.0.0.0/29"), "IPv4 Service Continuity Prefix", "RFC 7335", notGlobal},
	{cidr("192.0.0.8/32"), "IPv4 dummy address", "RFC 7600", notGlobal},
	{cidr("192.0.0.9/32"), "Port Control Protocol Anycast", "RFC 7723", global},
	{cidr("192.0.0.10/32"), "Traversal Using Relays around NAT Anycast", "RFC 8155", global},
	{cidr("192.0.0.170/32"), "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050, section 2.2", notGlobal},
	{cidr("192.0.0.171/32"), "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050, section 2.2", notGlobal},
	{cidr("192.0.2.0/24"), "Documentation (TEST-NET-1)", "RFC 5737", notGlobal},
	{cidr("192.31.196.0/24"), "AS112-v4", "RFC 7535", global},
	{cidr("192.52.193.0/24"), "AMT", "RFC 7450", global},
	{cidr("192.88.99.0/24"), "Deprecated (6to4 Relay Anycast)", "RFC 7526", notApplicable},
	{cidr("192.88.99.2/32"), "6a44-relay anycast address", "RFC 6751", notGlobal},
	{cidr("192.168.0.0/16"), "Private-Use", "RFC 1918", notGlobal},
	{cidr("192.175.48.0/24"), "Direct Delegation AS112 Service", "RFC 7534", global},
	{cidr("198.18.0.0/15"), "Benchmarking", "RFC 2544", notGlobal},
	{cidr("198.51.100.0/24"), "Documentation (TEST-NET-2)", "RFC 5737", notGlobal},
	{cidr("203.0.113.0/24"), "Documentation (TEST-NET-3)", "RFC 5737", notGlobal},
	{cidr("240.0.0.0/4"), "Reserved", "RFC 1112, section 4", notGlobal},
	{cidr("255.255.255.255/32"), "Limited Broadcast", "RFC 8190, RFC 919, section 7", notGlobal},

	// IPv6.
	{cidr("::1/128"), "Loopback Address", "RFC 4291", notGlobal},
	{cidr("::/128"), "Unspecified Address", "RFC 4291", notGlobal},
	{cidr("::ffff:0:0/96"), "IPv4-mapped Address", "RFC 4291", notGlobal},
	{cidr("64:ff9b::/96"), "IPv4-IPv6 Translat.", "RFC 6052", global},
	{cidr("64:ff9b:1::/48"), "IPv4-IPv6 Translat.", "RFC 8215", notGlobal},
	{cidr("100::/64"), "Discard-Only Address Block", "RFC 6666", notGlobal},
	{cidr("100:0:0:1::/64"), "Dummy IPv6 Prefix", "RFC 9780", notGlobal},
	{cidr("2001::/23"), "IETF Protocol Assignments", "RFC 2928", notGlobal},
	{cidr("2001::/32"), "TEREDO", "RFC 4380, RFC 8190", notApplicable},
	{cidr("2001:1::1/128"), "Port Control Protocol Anycast", "RFC 7723", global},
	{cidr("2001:1::2/128"), "Traversal Using Relays around NAT Anycast", "RFC 8155", global},
	{cidr("2001:1::3/128"), "DNS-SD Service Registration Protocol Anycast", "RFC 9665", global},
	{cidr("2001:2::/48"), "Benchmarking", "RFC 5180, RFC Errata 1752", notGlobal},
	{cidr("2001:3::/32"), "AMT", "RFC 7450", global},
	{cidr("2001:4:112::/48"), "AS112-v6", "RFC 7535", global},
	{cidr("2001:10::/28"), "Deprecated (previously ORCHID)", "RFC 4843", notApplicable},
	{cidr("2001:20::/28"), "ORCHIDv2", "RFC 7343", global},
	{cidr("2001:30::/28"), "Drone Remote ID Protocol Entity Tags (DETs) Prefix", "RFC 9374", global},
	{cidr("2001:db8::/32"), "Documentation", "RFC 3849", notGlobal},
	{cidr("2002::/16"), "6to4", "RFC 3056", notApplicable},
	{cidr("2620:4f:8000::/48"), "Direct Delegation AS112 Service", "RFC 7534", global},
	{cidr("3fff::/20"), "Documentation", "RFC 9637", notGlobal},
	{cidr("5f00::/16"), "Segment Routing (SRv6) SIDs", "RFC 9602", notGlobal},
	{cidr("fc00::/7"), "Unique-Local", "RFC 4193, RFC 8190", notGlobal},
	{cidr("fe80::/10"), "Link-Local Unicast", "RFC 4291", notGlobal},

	// Not in the special-purpose registries. Multicast (IANA's IPv4 and
	// IPv6 multicast address space registries) is never a receiver.
	{cidr("224.0.0.0/4"), "Multicast", "RFC 5771", notGlobal},
	{cidr("ff00::/8"), "Multicast", "RFC 4291", notGlobal},
	// IANA's IPv6 Address Space registry allocates global unicast from
	// 2000::/3 only; the rest is reserved by the IETF or special (ULA,
	// link-local and multicast above), including the deprecated
	// IPv4-compatible addresses (::/96, e.g. ::7f00:1) and site-local
	// addresses (fec0::/10, RFC 3879), still routed inside some networks.
	{cidr("::/0"), "Reserved by IETF", "IPv6 Address Space registry", notGlobal},
	{cidr("fec0::/10"), "Site-local (deprecated)", "RFC 3879", notGlobal},
	{cidr("2000::/3"), "Global Unicast", "IPv6 Address Space registry, RFC 4291", global},
}

func cidr(s string) netip.Prefix { return netip.MustParsePrefix(s) }
