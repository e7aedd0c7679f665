package egress

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/netguard"
)

// testHosts maps made-up names (and name:port pairs) to the servers of a
// test. It is the only way a loopback or private address gets past the
// proxy's checks, and only for exactly the addresses listed; it is empty
// unless the config's test-only setting fills it.
type testHosts struct {
	byName     map[string]netip.Addr
	byNamePort map[string]netip.AddrPort
}

// parseTestHosts reads "name" → "ip" and "name:port" → "ip:port".
func parseTestHosts(m map[string]string) (testHosts, error) {
	th := testHosts{byName: map[string]netip.Addr{}, byNamePort: map[string]netip.AddrPort{}}
	for k, v := range m {
		name, port, hasPort := strings.Cut(k, ":")
		lit, norm, err := netguard.CheckHost(name)
		if err != nil || lit.IsValid() {
			return th, fmt.Errorf("test host %q must be a host name such as pkgs.example.test", k)
		}
		if !hasPort {
			a, err := netip.ParseAddr(v)
			if err != nil {
				return th, fmt.Errorf("test host %q maps to %q, which is not an IP address", k, v)
			}
			th.byName[norm] = a.Unmap()
			continue
		}
		if _, err := parsePort(port); err != nil {
			return th, fmt.Errorf("test host %q: %w", k, err)
		}
		ap, err := netip.ParseAddrPort(v)
		if err != nil {
			return th, fmt.Errorf("test host %q maps to %q, which is not an ip:port address", k, v)
		}
		th.byNamePort[norm+":"+port] = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	return th, nil
}

func (th testHosts) lookup(name string, port int) (netip.AddrPort, bool) {
	if ap, ok := th.byNamePort[name+":"+strconv.Itoa(port)]; ok {
		return ap, true
	}
	if a, ok := th.byName[name]; ok {
		return netip.AddrPortFrom(a, uint16(port)), true
	}
	return netip.AddrPort{}, false
}

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("%q is not a port number", s)
	}
	return n, nil
}

// pins are a run's resolved names: the first answer for a name is the
// only one the run ever connects to, so DNS that changes mid-run
// (rebinding) has nowhere to send it.
type pins struct {
	mu sync.Mutex
	m  map[string][]netip.Addr
}

// resolve returns the addresses to dial for name:port: a test host's, or
// the pinned (else freshly resolved and checked) addresses of name.
func (p *Proxy) resolve(ctx context.Context, pinned *pins, name string, port int) ([]netip.AddrPort, error) {
	if ap, ok := p.tests.lookup(name, port); ok {
		return []netip.AddrPort{ap}, nil
	}
	pinned.mu.Lock()
	addrs, ok := pinned.m[name]
	pinned.mu.Unlock()
	if !ok {
		found, err := netguard.ResolveChecked(ctx, p.opts.Resolver, name, uint16(port), nil)
		if err != nil {
			return nil, resolveRefusal(name, err)
		}
		pinned.mu.Lock()
		if prev, ok := pinned.m[name]; ok {
			found = prev // another connection of the run got there first
		} else {
			pinned.m[name] = found
		}
		pinned.mu.Unlock()
		addrs = found
	}
	out := make([]netip.AddrPort, len(addrs))
	for i, a := range addrs {
		out[i] = netip.AddrPortFrom(a, uint16(port))
	}
	return out, nil
}

// resolveRefusal words a failed or refused lookup for the command.
func resolveRefusal(name string, err error) error {
	var be *netguard.BlockedError
	if errors.As(err, &be) {
		return &refusal{status: 403, msg: fmt.Sprintf("%s resolves to %s, %s; Gatehouse's proxy does not connect there", name, be.Addr, be.Reason)}
	}
	return &refusal{status: 502, msg: fmt.Sprintf("Gatehouse's proxy could not resolve %s", name), err: err}
}

// permit is what the dialer's last check lets through: the test hosts'
// addresses, nothing else.
func (p *Proxy) permit(ap netip.AddrPort) bool {
	for _, t := range p.tests.byNamePort {
		if t == ap {
			return true
		}
	}
	for _, a := range p.tests.byName {
		if a == ap.Addr() {
			return true
		}
	}
	return false
}
