package launch

import (
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// requestChannel is a connected pair of unix sockets: the daemon writes
// the Request on ours and shuts it for writing (the helper reads to EOF),
// and the helper may hand a descriptor back on theirs (the proxy's
// listening socket in the sandbox's network namespace).
func requestChannel() (ours *net.UnixConn, theirs *os.File, err error) {
	// Under ForkLock, as the net package does: a fork between socketpair
	// and CloseOnExec would leak the pair into another child.
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("create sandbox request socket: %w", err)
	}
	f := os.NewFile(uintptr(fds[0]), "request")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("create sandbox request socket: %w", err)
	}
	return c.(*net.UnixConn), os.NewFile(uintptr(fds[1]), "request"), nil
}
