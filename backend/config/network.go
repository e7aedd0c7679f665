package config

import (
	"fmt"
	"net"
	"slices"
	"strconv"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Network is how sandboxed commands reach the network: through
// Gatehouse's egress proxy, one approved domain at a time.
type Network struct {
	// Enabled gives every command the proxy (the default). Off, commands
	// have no network at all.
	Enabled *bool `toml:"enabled"`
	// TestHosts is TEST-ONLY: it maps made-up names ("pkgs.example.test",
	// or "pkgs.example.test:443") to local test servers ("127.0.0.1", or
	// "127.0.0.1:40123"), which then get past the proxy's refusal of
	// loopback and private addresses. Never set it outside tests.
	TestHosts map[string]string `toml:"test_only_hosts"`
	// HostPorts are ports of this machine's loopback that commands may
	// reach: services of the person's that a project's tests need (a
	// database on 5432, a cache on 6379). Each connection goes through
	// Gatehouse and is recorded in the audit. Empty by default: a
	// command reaches no service of the machine.
	HostPorts []int `toml:"host_ports"`
}

// maxHostPorts bounds host_ports: each is a listener in every sandbox.
const maxHostPorts = 8

// validate checks host_ports against what they may not be.
func (n Network) validate(listen string) error {
	if len(n.HostPorts) > maxHostPorts {
		return fmt.Errorf("network.host_ports lists %d ports; at most %d", len(n.HostPorts), maxHostPorts)
	}
	_, own, _ := net.SplitHostPort(listen)
	_, proxy, _ := net.SplitHostPort(sandbox.ProxyAddr)
	for i, p := range n.HostPorts {
		ps := strconv.Itoa(p)
		switch {
		case p <= 0 || p > 65535:
			return fmt.Errorf("network.host_ports: %d is not a port (1 to 65535)", p)
		case slices.Contains(n.HostPorts[:i], p):
			return fmt.Errorf("network.host_ports lists %d twice", p)
		case ps == own:
			return fmt.Errorf("network.host_ports: %d is Gatehouse's own port (listen), which no command may reach", p)
		case ps == proxy:
			return fmt.Errorf("network.host_ports: %d is where commands find Gatehouse's proxy inside the sandbox; a service there cannot be reached this way", p)
		}
	}
	return nil
}

// On reports whether commands get the proxy.
func (n Network) On() bool { return n.Enabled == nil || *n.Enabled }
