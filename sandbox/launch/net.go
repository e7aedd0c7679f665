package launch

import (
	"net"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// OwnNamespaceNet is the helper's network for a run in a network
// namespace of its own (bwrap, a container): with a proxy, the helper
// listens at sandbox.ProxyAddr inside it and hands the socket back.
// It listens for the proxy's host ports there too.
func OwnNamespaceNet(n sandbox.Network) *initproc.Net {
	switch n.Mode {
	case sandbox.NetHost:
		return &initproc.Net{Mode: initproc.NetHost}
	case sandbox.NetProxy:
		return &initproc.Net{Mode: initproc.NetProxy, Listen: sandbox.ProxyAddr, HostPorts: n.Proxy.HostPorts()}
	}
	return &initproc.Net{Mode: initproc.NetNone}
}

// HostNamespaceNet is the helper's network for a run in the host's
// network namespace (Landlock): with a proxy, TCP connects may go to
// proxyPort, and to each host port, which leads to its listener in
// hostListeners.
func HostNamespaceNet(mode sandbox.NetworkMode, proxyPort int, hostListeners map[int]net.Listener) *initproc.Net {
	switch mode {
	case sandbox.NetHost:
		return &initproc.Net{Mode: initproc.NetHost}
	case sandbox.NetProxy:
		n := &initproc.Net{Mode: initproc.NetProxy, HostNamespace: true, ProxyPort: proxyPort}
		for port, ln := range hostListeners {
			if n.Routes == nil {
				n.Routes = map[int]int{}
			}
			n.Routes[port] = ln.Addr().(*net.TCPAddr).Port
		}
		return n
	}
	return &initproc.Net{Mode: initproc.NetNone, HostNamespace: true}
}
