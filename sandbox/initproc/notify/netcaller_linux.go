package notify

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// netCaller is the task whose socket call waits on the network supervisor:
// a pidfd opened while the call waits, so what is read of it and the
// socket taken from it are that task's and not one's that took its pid
// after it died.
type netCaller struct {
	listener int
	req      *seccompNotif
	pidfd    int
}

// openNetCaller opens req's caller. The caller is a thread, often not its
// process's first (a runtime's network thread).
func openNetCaller(listener int, req *seccompNotif) (*netCaller, unix.Errno) {
	pidfd, err := threadPidfd(int(req.Pid), func() (string, error) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", req.Pid))
		if v, ok := statusValue(b, "Tgid"); err == nil && ok {
			return v, nil
		}
		return "", unix.ESRCH
	})
	if err != nil {
		return nil, unix.EACCES
	}
	return &netCaller{listener: listener, req: req, pidfd: pidfd}, 0
}

func (c *netCaller) close() { unix.Close(c.pidfd) }

// sockaddr reads the n-byte address at addr in the caller's memory, once:
// the call is decided on this copy and made with it, so a caller changing
// the address after the check changes nothing.
func (c *netCaller) sockaddr(addr uintptr, n int) ([]byte, unix.Errno) {
	if n < 2 || n > 128 {
		return nil, unix.EINVAL
	}
	sa := make([]byte, n)
	mem, err := os.Open(fmt.Sprintf("/proc/%d/mem", c.req.Pid))
	if err != nil {
		return nil, unix.EACCES
	}
	_, err = mem.ReadAt(sa, int64(addr))
	mem.Close()
	if err != nil {
		return nil, unix.EFAULT
	}
	return sa, 0
}

// socket is the supervisor's own descriptor for the caller's fd: the same
// socket, on which the supervisor makes the call itself. It checks first
// that the call still waits, so the pid read above named the caller.
func (c *netCaller) socket(fd int) (int, unix.Errno) {
	if validate(c.listener, c.req.ID) != nil {
		return -1, unix.EINTR
	}
	own, err := unix.PidfdGetfd(c.pidfd, fd, 0)
	if err != nil {
		var en unix.Errno
		if errors.As(err, &en) && en == unix.EBADF {
			return -1, unix.EBADF
		}
		return -1, unix.EACCES
	}
	return own, 0
}

// threadPidfd is a pidfd for the thread tid: the thread's own, or before
// Linux 6.9, where a pidfd names a process, its process's (whose id tgid
// reads).
func threadPidfd(tid int, tgid func() (string, error)) (int, error) {
	pidfd, err := unix.PidfdOpen(tid, unix.PIDFD_THREAD)
	if err != unix.EINVAL {
		return pidfd, err
	}
	t, err := tgid()
	if err != nil {
		return -1, err
	}
	n, err := strconv.Atoi(t)
	if err != nil {
		return -1, unix.ESRCH
	}
	return unix.PidfdOpen(n, 0)
}
