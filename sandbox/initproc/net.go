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
	// Listen is where the helper listens for the proxy inside the run's own
	// namespace (NetProxy without HostNamespace; empty in a stage that only
	// installs the filter). The listening socket goes
	// back to the daemon, which accepts on it: nothing of the proxy runs in
	// the sandbox, and only the run's processes can reach it.
	Listen string `json:"listen,omitempty"`
}

// check fails closed on a mode or field combination it does not know.
func (n *Net) check() error {
	switch n.Mode {
	case NetNone, NetHost:
		if n.ProxyPort != 0 || n.Listen != "" {
			return fmt.Errorf("network %q takes no proxy", n.Mode)
		}
	case NetProxy:
		if n.HostNamespace && (n.ProxyPort <= 0 || n.ProxyPort > 65535 || n.Listen != "") {
			return fmt.Errorf("a proxy in the host's namespace needs a port and no listen address")
		}
		if !n.HostNamespace && n.ProxyPort != 0 {
			return fmt.Errorf("a proxy in the run's own namespace has no host port")
		}
		if n.Listen != "" {
			if _, err := netip.ParseAddrPort(n.Listen); err != nil {
				return fmt.Errorf("proxy listen address: %w", err)
			}
		}
	default:
		return fmt.Errorf("unknown network mode %q", n.Mode)
	}
	return nil
}
