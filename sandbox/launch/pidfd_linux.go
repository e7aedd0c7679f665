package launch

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// handed is a process held by its pidfd: signals cannot reach another
// process that took its number once it is gone.
type handed struct {
	fd  *os.File
	id  int
	raw syscall.RawConn
}

// adoptPidfd holds the process behind pidfd, which the caller gives up.
func adoptPidfd(pidfd int) (process, error) {
	id, err := pidOf(pidfd)
	if err != nil {
		unix.Close(pidfd)
		return nil, err
	}
	// Non-blocking, so that its exit is waited for by the runtime's
	// poller rather than a thread per ready sandbox.
	if err := unix.SetNonblock(pidfd, true); err != nil {
		unix.Close(pidfd)
		return nil, fmt.Errorf("pidfd: %w", err)
	}
	f := os.NewFile(uintptr(pidfd), "pidfd")
	raw, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("pidfd: %w", err)
	}
	return &handed{fd: f, id: id, raw: raw}, nil
}

func (h *handed) pid() int { return h.id }

func (h *handed) signal(sig syscall.Signal) error {
	var err error
	if cerr := h.raw.Control(func(fd uintptr) { err = unix.PidfdSendSignal(int(fd), sig, nil, 0) }); cerr != nil {
		return cerr
	}
	if errors.Is(err, unix.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// wait polls the pidfd, which becomes readable once the process exits,
// and then lets it go.
func (h *handed) wait() (*os.ProcessState, error) {
	defer h.fd.Close()
	err := h.raw.Read(func(fd uintptr) bool {
		return exited(int(fd)) // false: wait for readiness and look again
	})
	return nil, err
}

func (h *handed) gone() bool {
	done := false
	if err := h.raw.Control(func(fd uintptr) { done = exited(int(fd)) }); err != nil {
		return true // closed: wait has seen it exit
	}
	return done
}

// exited polls a pidfd without waiting: it is readable once the process
// has exited.
func exited(pidfd int) bool {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0
}

// pidOf reads the process id a pidfd refers to from its fdinfo, in this
// process's PID namespace.
func pidOf(pidfd int) (int, error) {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(pidfd))
	if err != nil {
		return 0, fmt.Errorf("read pidfd: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			id, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || id <= 0 {
				return 0, fmt.Errorf("pidfd names no live process (%q)", strings.TrimSpace(v))
			}
			return id, nil
		}
	}
	return 0, errors.New("pidfd: no Pid line in its fdinfo")
}
