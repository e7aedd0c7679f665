package launch

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// seqpacketPair is a connected pair of SOCK_SEQPACKET unix sockets, made
// under ForkLock so no child started meanwhile inherits them.
func seqpacketPair() ([2]*os.File, error) {
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	syscall.ForkLock.RUnlock()
	if err != nil {
		return [2]*os.File{}, fmt.Errorf("create the sandbox template's socket: %w", err)
	}
	return [2]*os.File{os.NewFile(uintptr(fds[0]), "zygote"), os.NewFile(uintptr(fds[1]), "zygote")}, nil
}
