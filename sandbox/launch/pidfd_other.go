//go:build !linux

package launch

import (
	"errors"
	"syscall"
)

// adoptPidfd: pidfds exist only on Linux, and so do zygotes.
func adoptPidfd(pidfd int) (process, error) {
	syscall.Close(pidfd)
	return nil, errors.New("a process handed over by a pidfd needs Linux")
}
