package config

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
}

// On reports whether commands get the proxy.
func (n Network) On() bool { return n.Enabled == nil || *n.Enabled }
