package launch

import (
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// OwnNamespaceNet is the helper's network for a run in a network
// namespace of its own (bwrap, a container): with a proxy, the helper
// listens at sandbox.ProxyAddr inside it and hands the socket back.
func OwnNamespaceNet(mode sandbox.NetworkMode) *initproc.Net {
	switch mode {
	case sandbox.NetHost:
		return &initproc.Net{Mode: initproc.NetHost}
	case sandbox.NetProxy:
		return &initproc.Net{Mode: initproc.NetProxy, Listen: sandbox.ProxyAddr}
	}
	return &initproc.Net{Mode: initproc.NetNone}
}

// HostNamespaceNet is the helper's network for a run in the host's
// network namespace (Landlock): with a proxy, TCP connects may go to
// proxyPort only.
func HostNamespaceNet(mode sandbox.NetworkMode, proxyPort int) *initproc.Net {
	switch mode {
	case sandbox.NetHost:
		return &initproc.Net{Mode: initproc.NetHost}
	case sandbox.NetProxy:
		return &initproc.Net{Mode: initproc.NetProxy, HostNamespace: true, ProxyPort: proxyPort}
	}
	return &initproc.Net{Mode: initproc.NetNone, HostNamespace: true}
}
