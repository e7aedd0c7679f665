//go:build linux || darwin

package listen

import (
	"fmt"
	"net"
)

// peerUID is the uid of the process at the other end of c, as the kernel
// recorded it at connect (peerCred is the platform's socket option).
func peerUID(c *net.UnixConn) (uint32, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var uid uint32
	var credErr error
	if err := raw.Control(func(fd uintptr) { uid, credErr = peerCred(int(fd)) }); err != nil {
		return 0, err
	}
	if credErr != nil {
		return 0, fmt.Errorf("%s: %w", peerCredOption, credErr)
	}
	return uid, nil
}
