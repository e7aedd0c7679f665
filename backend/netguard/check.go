package netguard

import (
	"context"
	"fmt"
	"net/netip"
	"syscall"
)

// The checks Fetch applies, for other callers that connect on the agent's
// behalf (the egress proxy): one set of SSRF rules for every way out.

// CheckHost applies the host checks of a URL to a bare host name or
// address, such as a proxy request's authority. It returns the literal
// address, or else the normalised name to resolve.
func CheckHost(host string) (netip.Addr, string, error) {
	a, name, err := classifyHost(host)
	if err != nil {
		return a, name, err
	}
	return a, name, nil
}

// Permit lets an address through the checks; nil permits nothing. Tests
// use it for their servers on loopback; configuration never fills it
// except through an explicitly test-only setting.
type Permit func(netip.AddrPort) bool

func (p Permit) allows(a netip.AddrPort) bool { return p != nil && p(a) }

// ResolveChecked resolves name with r and checks every address it gets:
// one that Fetch would never connect to (loopback, private, link-local,
// CGNAT, metadata…) refuses the whole name, unless permit allows that
// address on port. The addresses it returns are the only ones to dial.
func ResolveChecked(ctx context.Context, r Resolver, name string, port uint16, permit Permit) ([]netip.Addr, error) {
	found, err := r.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return nil, fmt.Errorf("cannot resolve %s: %w", name, err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("cannot resolve %s: no addresses", name)
	}
	return checkAddrs(name, found, port, permit)
}

func checkAddrs(host string, addrs []netip.Addr, port uint16, permit Permit) ([]netip.Addr, error) {
	out := make([]netip.Addr, len(addrs))
	for i, a := range addrs {
		a = a.Unmap().WithZone("")
		out[i] = a
		if reason, bad := Blocked(a); bad && !permit.allows(netip.AddrPortFrom(a, port)) {
			return nil, &BlockedError{Host: host, Addr: a, Reason: reason}
		}
	}
	return out, nil
}

// DialControl is a net.Dialer Control that checks the exact socket address
// just before connect, a second line behind ResolveChecked.
func DialControl(permit Permit) func(network, address string, c syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return &BlockedError{Host: address, Reason: "the dial address could not be checked"}
		}
		a := ap.Addr().Unmap()
		if reason, bad := Blocked(a); bad && !permit.allows(netip.AddrPortFrom(a, ap.Port())) {
			return &BlockedError{Host: address, Addr: a, Reason: reason}
		}
		return nil
	}
}
