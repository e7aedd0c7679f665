// Package netguard fetches URLs for the fetch_url tool without letting the
// agent reach the machine's own services or its private networks (SSRF).
//
// Every host name is resolved once by the guard, every resulting address is
// checked, and the connection is dialled to that checked address only, so a
// DNS answer that changes between check and use (rebinding) has nowhere to
// go. Redirects go through the same gate. Which domains may be fetched at all
// is policy's business; netguard only offers a hook for it.
package netguard

import "net/netip"

type blockedRange struct {
	prefix netip.Prefix
	reason string
}

func mustPrefix(s, reason string) blockedRange {
	return blockedRange{netip.MustParsePrefix(s), reason}
}

// metadataAddrs hand out cloud credentials; they get their own reason.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true, // AWS, GCP, Azure, OpenStack…
	netip.MustParseAddr("169.254.170.2"):   true, // AWS ECS task credentials
	netip.MustParseAddr("fd00:ec2::254"):   true, // AWS IMDS over IPv6
	netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
	netip.MustParseAddr("168.63.129.16"):   true, // Azure host endpoint (a public address)
}

var blockedV4 = []blockedRange{
	mustPrefix("0.0.0.0/8", "an unspecified (this-host) address"),
	mustPrefix("10.0.0.0/8", "a private network address"),
	mustPrefix("100.64.0.0/10", "a carrier-grade NAT address"),
	mustPrefix("127.0.0.0/8", "a loopback address"),
	mustPrefix("169.254.0.0/16", "a link-local address"),
	mustPrefix("172.16.0.0/12", "a private network address"),
	mustPrefix("192.0.0.0/24", "a reserved protocol address"),
	mustPrefix("192.0.2.0/24", "a documentation address"),
	mustPrefix("192.88.99.0/24", "a 6to4 relay address"),
	mustPrefix("192.168.0.0/16", "a private network address"),
	mustPrefix("198.18.0.0/15", "a benchmarking network address"),
	mustPrefix("198.51.100.0/24", "a documentation address"),
	mustPrefix("203.0.113.0/24", "a documentation address"),
	mustPrefix("224.0.0.0/4", "a multicast address"),
	mustPrefix("240.0.0.0/4", "a reserved address"),
	mustPrefix("255.255.255.255/32", "the broadcast address"),
}

var blockedV6 = []blockedRange{
	mustPrefix("::/128", "the unspecified address"),
	mustPrefix("::1/128", "a loopback address"),
	mustPrefix("100::/64", "a discard-only address"),
	mustPrefix("2001::/32", "a Teredo tunnel address"),
	mustPrefix("2001:db8::/32", "a documentation address"),
	mustPrefix("2001:10::/28", "a reserved (ORCHID) address"),
	mustPrefix("64:ff9b:1::/48", "a local NAT64 address"),
	mustPrefix("fc00::/7", "a unique local (private) address"),
	mustPrefix("fe80::/10", "a link-local address"),
	mustPrefix("fec0::/10", "a site-local address"),
	mustPrefix("ff00::/8", "a multicast address"),
}

// Blocked reports whether fetching from a is refused, and why. IPv6 forms
// that carry an IPv4 address (mapped, compatible, translated, NAT64, 6to4)
// are judged by the address they carry.
func Blocked(a netip.Addr) (reason string, blocked bool) {
	if !a.IsValid() {
		return "not a valid address", true
	}
	a = a.WithZone("")
	if metadataAddrs[a] {
		return "a cloud metadata service", true
	}
	if a.Is4In6() {
		return embedded("IPv4-mapped ", a.Unmap())
	}
	if a.Is4() {
		for _, r := range blockedV4 {
			if r.prefix.Contains(a) {
				return r.reason, true
			}
		}
		return "", false
	}
	b := a.As16()
	switch {
	case isZero(b[:12]) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback():
		// ::a.b.c.d, deprecated IPv4-compatible form: nothing legitimate uses it.
		v4 := netip.AddrFrom4([4]byte(b[12:16]))
		if reason, bad := embedded("IPv4-compatible ", v4); bad {
			return reason, true
		}
		return "a deprecated IPv4-compatible IPv6 address", true
	case isZero(b[:8]) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0:
		return embedded("IPv4-translated ", netip.AddrFrom4([4]byte(b[12:16])))
	case b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && isZero(b[4:12]):
		return embedded("NAT64 ", netip.AddrFrom4([4]byte(b[12:16])))
	case b[0] == 0x20 && b[1] == 0x02:
		return embedded("6to4 ", netip.AddrFrom4([4]byte(b[2:6])))
	}
	for _, r := range blockedV6 {
		if r.prefix.Contains(a) {
			return r.reason, true
		}
	}
	return "", false
}

func embedded(form string, v4 netip.Addr) (string, bool) {
	if metadataAddrs[v4] {
		return form + "form of a cloud metadata service", true
	}
	for _, r := range blockedV4 {
		if r.prefix.Contains(v4) {
			return form + "form of " + r.reason, true
		}
	}
	return "", false
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
