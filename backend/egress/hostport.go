package egress

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"time"
)

// MethodHost is a Connection's Method for one to a host port (ServeHost):
// no HTTP, the run's bytes as they come.
const MethodHost = "HOST"

// hostAddrs are where a host port is dialled, in order: a service on the
// loopback listens on one of them, or both.
var hostAddrs = []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}

// Reserve names a port of the loopback this process listens on (the
// daemon's API), which no host port reaches whatever the config lists:
// the daemon's port may be known only once it listens.
func (p *Proxy) Reserve(port int) { p.own.Store(port, struct{}{}) }

// HostPorts implements sandbox.Proxy.
func (r *Run) HostPorts() []int { return slices.Clone(r.p.opts.HostPorts) }

// ServeHost implements sandbox.Proxy: each connection the run makes to
// port reaches the same port of the machine's loopback, a service the
// person listed (a database, a cache), its bytes untouched and the
// connection recorded. A port not listed, or one this process listens on,
// reaches nothing.
func (r *Run) ServeHost(port int, ln net.Listener) {
	r.accept(ln, func(c net.Conn) { r.host(c, port, "") })
}

// host serves one connection to a host port, which process made (when
// the run is labelled).
func (r *Run) host(c net.Conn, port int, process string) {
	start := time.Now()
	rec := Connection{Session: r.info.Session, Call: r.info.Call, Domain: "localhost", Port: port, Method: MethodHost, Process: process}
	defer func() {
		rec.Duration = time.Since(start)
		r.record(rec)
	}()
	server, err := r.dialHost(port, process)
	if err != nil {
		rec.Refused = err.Error()
		r.p.log.Info("egress: host port refused", "session", rec.Session, "call", rec.Call, "port", port, "err", err)
		return
	}
	defer server.Close()
	rec.Addr = server.RemoteAddr().String()
	pipe(c, nil, server, &rec)
}

// dialHost connects to port on the machine's loopback, once the run's
// Decider lets it.
func (r *Run) dialHost(port int, process string) (net.Conn, error) {
	// Why: only a port the person listed is a service of theirs; the
	// run's listener for any other would be a way onto the whole loopback.
	if !slices.Contains(r.p.opts.HostPorts, port) {
		return nil, fmt.Errorf("port %d of this machine is not one of [network] host_ports in Gatehouse's config", port)
	}
	// Why: the daemon's own API is no service of the person's; a host
	// port that names it would hand the run the daemon's door.
	if _, own := r.p.own.Load(port); own {
		return nil, fmt.Errorf("port %d of this machine is Gatehouse's own, which no command reaches", port)
	}
	// Why: listing a port is the person's approval, not a rule's; a
	// network rule that denies it, the organisation's above all, wins.
	if a := r.decide(Question{Domain: "localhost", Port: port, Process: process, Listed: true}); !a.Allow {
		reason := a.Reason
		if reason == "" {
			reason = "it was not approved"
		}
		return nil, fmt.Errorf("the connection to port %d of this machine was refused: %s", port, reason)
	}
	d := net.Dialer{Timeout: r.p.opts.DialTimeout}
	d.SetMultipathTCP(false)
	for _, a := range hostAddrs {
		c, err := d.DialContext(r.ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return c, nil
		}
	}
	return nil, fmt.Errorf("nothing answers on port %d of this machine (127.0.0.1 or ::1): start the service there first", port)
}
