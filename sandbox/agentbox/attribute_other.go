//go:build !linux

package agentbox

import "net"

// Process cannot look inside the sandbox here.
func (b *Box) Process(net.Conn) string { return "unknown" }
