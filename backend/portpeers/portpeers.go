// Package portpeers names the processes that hold a TCP connection to a
// local port: what `gatehouse doctor` and `public status` use to show a
// tunnel or relay Gatehouse did not start (socat, ssh -R, a tunnel
// client) connected to the daemon. It reads /proc on Linux; elsewhere it
// finds nothing.
package portpeers

// Peer is one connection to the port and the process holding it.
type Peer struct {
	PID int `json:"pid"` // 0: the process could not be seen (another user's)
	// Command is the process's name (comm), Exe its executable.
	Command string `json:"command"`
	Exe     string `json:"exe,omitempty"`
	// From is the connection's own end, host:port.
	From string `json:"from"`
}
