package initproc

import (
	"fmt"
	"net/netip"
)

// NetMode is a run's network as the helper enforces it.
type NetMode string

const (
	// NetNone: no IP traffic leaves the run.
	NetNone NetMode = "none"
	// NetProxy: TCP to the run's proxy only.
	NetProxy NetMode = "proxy"
	// NetHost: the host's network, untouched.
	NetHost NetMode = "host"
)

// Net is the network part of a call, applied by the helper once the call
// arrives and just before exec, so one sandbox built ahead of time serves
// any network mode.
type Net struct {
	Mode NetMode `json:"mode"`
	// HostNamespace says the run shares the host's network namespace (the
	// landlock backend): Landlock allows TCP connects to ProxyPort only (none
	// at all without a proxy), and seccomp refuses every socket but unix
	// ones and, with a proxy, TCP ones. Otherwise the run's own namespace
	// (bwrap, a container) is the boundary and seccomp only refuses the
	// socket families a namespace does not confine (vsock and the like).
	HostNamespace bool `json:"host_namespace,omitempty"`
	// ProxyPort is the port of the proxy's listener on the host's loopback
	// (HostNamespace with NetProxy).
	ProxyPort int `json:"proxy_port,omitempty"`
	// Routes are more ports on the host's loopback a run in the host's
	// namespace with a proxy may connect to, each to the port it leads to
	// (Routes[dialled] = reached): a whole confined agent dials the proxy
	// and the daemon where it would inside a namespace of its own
	// (agentbox), and reaches its run's own listeners.
	Routes map[int]int `json:"routes,omitempty"`
	// Listen is where the helper listens for the proxy inside the run's own
	// namespace (NetProxy without HostNamespace; empty in a stage that only
	// installs the filter). The listening socket goes
	// back to the daemon, which accepts on it: nothing of the proxy runs in
	// the sandbox, and only the run's processes can reach it.
	Listen string `json:"listen,omitempty"`
	// HostPorts are ports the helper also listens on, at 127.0.0.1 and
	// ::1 inside the run's own namespace (with Listen), and hands back
	// after the proxy's socket: the daemon connects each connection to the
	// same port of the machine's loopback (services the person listed). In
	// the host's namespace the daemon's Routes carry them instead.
	HostPorts []int `json:"host_ports,omitempty"`
}

// check fails closed on a mode or field combination it does not know.
func (n *Net) check() error {
	switch n.Mode {
	case NetNone, NetHost:
		if n.ProxyPort != 0 || n.Listen != "" || len(n.Routes) > 0 || len(n.HostPorts) > 0 {
			return fmt.Errorf("network %q takes no proxy", n.Mode)
		}
	case NetProxy:
		if n.HostNamespace && (n.ProxyPort <= 0 || n.ProxyPort > 65535 || n.Listen != "") {
			return fmt.Errorf("a proxy in the host's namespace needs a port and no listen address")
		}
		if !n.HostNamespace && (n.ProxyPort != 0 || len(n.Routes) > 0) {
			return fmt.Errorf("a proxy in the run's own namespace has no host port")
		}
		for from, to := range n.Routes {
			if from <= 0 || from > 65535 || to <= 0 || to > 65535 {
				return fmt.Errorf("a route from port %d to %d is not between two ports", from, to)
			}
		}
		if n.Listen != "" {
			if _, err := netip.ParseAddrPort(n.Listen); err != nil {
				return fmt.Errorf("proxy listen address: %w", err)
			}
		}
		if len(n.HostPorts) > 0 && n.Listen == "" {
			return fmt.Errorf("host ports come with the proxy's listener in the run's own namespace")
		}
		for _, p := range n.HostPorts {
			if p <= 0 || p > 65535 {
				return fmt.Errorf("host port %d is not a port", p)
			}
		}
	default:
		return fmt.Errorf("unknown network mode %q", n.Mode)
	}
	return nil
}

// routes are every port a run in the host's namespace with a proxy may
// connect to, and where each leads.
func (n *Net) routes() map[int]int {
	out := map[int]int{n.ProxyPort: n.ProxyPort}
	for from, to := range n.Routes {
		out[from] = to
	}
	return out
}
