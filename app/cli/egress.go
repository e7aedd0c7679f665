package cli

import (
	"fmt"
	"log/slog"

	"github.com/gatehouse-dev/gatehouse/backend/config"
	"github.com/gatehouse-dev/gatehouse/backend/egress"
)

// egressProxy is the proxy the config asks for, or nil when [network]
// enabled = false leaves commands without a network.
func egressProxy(n config.Network, log *slog.Logger) (*egress.Proxy, error) {
	if !n.On() {
		if len(n.HostPorts) > 0 {
			log.Warn("host_ports are set, but [network] enabled = false gives commands no network at all, these ports included", "ports", fmt.Sprint(n.HostPorts))
		}
		return nil, nil
	}
	p, err := egress.New(egress.Options{TestHosts: n.TestHosts, HostPorts: n.HostPorts, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("[network] in the config: %w", err)
	}
	if len(n.HostPorts) > 0 {
		// Said at every start: each is a way out of the sandbox the person opened.
		log.Info("commands reach these ports of this machine's loopback (host_ports)", "ports", fmt.Sprint(n.HostPorts))
	}
	return p, nil
}
