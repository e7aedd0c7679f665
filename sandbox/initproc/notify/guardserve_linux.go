package notify

import (
	"fmt"
	"runtime"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/caps"
	"golang.org/x/sys/unix"
)

// GuardSlack is room in RLIMIT_NPROC for the guard's thread and threads
// the Go runtime may add while it waits in the kernel.
const GuardSlack = 3

// Guard makes the entries a run's creating calls ask for, except
// the ones its createGuard refuses (see guardfilter_linux.go). One
// thread answers every call, in turn: each takes microseconds, since an
// open that would wait (a FIFO with no reader yet) waits in the
// pending list instead of on the thread.
type Guard struct {
	guard    *createGuard
	calls    map[uint32]guardCall
	listener chan int
	pending  []*pendingOpen
}

// StartGuard starts the guard's thread for a run that may not create
// paths: one that shares neither working directory nor umask with the
// rest of the process, and holds no capability when the target holds
// none (dropCaps), so the entries it makes are made with the caller's
// rights. It returns once the thread is ready for serve.
func StartGuard(paths []string, dropCaps bool) (*Guard, error) {
	g, err := newCreateGuard(paths)
	if err != nil {
		return nil, err
	}
	s := &Guard{guard: g, calls: guardCalls[runtime.GOARCH], listener: make(chan int, 1)}
	ready := make(chan error, 1)
	go s.work(ready, dropCaps)
	if err := <-ready; err != nil {
		close(s.listener)
		g.close()
		return nil, err
	}
	return s, nil
}

// Serve hands the filter's listener to the guard's thread.
func (s *Guard) Serve(listener int) { s.listener <- listener }

// HandGuard installs the guard's filter on this thread, which execs the
// target next, and sends its listener to the supervisor over sock
// (initproc.Config.GuardFD), then closes both.
func HandGuard(sock int) error {
	defer unix.Close(sock)
	l, err := InstallGuardFilter()
	if err != nil {
		return err
	}
	defer unix.Close(l)
	if err := fdpass.Send(sock, []byte{0}, l); err != nil {
		return fmt.Errorf("hand the creation guard to the supervisor: %w", err)
	}
	return nil
}

// Receive waits on sock for the target's listener and serves it.
// A target's stage that failed before sends nothing, and its exit closes
// the socket.
func (s *Guard) Receive(sock int) {
	defer unix.Close(sock)
	if fd, _, err := fdpass.ReceiveOne(sock, make([]byte, 1)); err == nil {
		s.Serve(fd)
	}
}

func (s *Guard) work(ready chan<- error, dropCaps bool) {
	// Never unlocked: the thread's working directory, umask and
	// capabilities are its own, and it ends with the goroutine.
	runtime.LockOSThread()
	err := unix.Unshare(unix.CLONE_FS)
	if err == nil && dropCaps {
		err = caps.DropThread()
	}
	ready <- err
	if err != nil {
		return
	}
	listener, ok := <-s.listener
	if !ok {
		return
	}
	for {
		timeout := -1
		if len(s.pending) > 0 {
			timeout = int(pendingRetry / time.Millisecond)
		}
		fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, timeout)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return
		case n == 0:
			s.retryPending(listener)
			continue
		case fds[0].Revents&unix.POLLIN == 0:
			return // no task holds the filter any more
		}
		notif, err := receiveNotif(listener)
		if err == errCallerGone {
			continue
		}
		if err != nil {
			return
		}
		s.answer(listener, &notif)
		if len(s.pending) > 0 {
			s.retryPending(listener)
		}
	}
}

// answer decodes n's call, checks that its caller still waits for it,
// then carries it out or refuses it, and replies.
func (s *Guard) answer(listener int, n *seccompNotif) {
	c, err := openCaller(n)
	if err != nil {
		answerNotif(listener, n.ID, err)
		return
	}
	defer c.close()
	call, err := decodeCall(c, s.calls[uint32(n.Nr)], n.Args)
	if err == nil {
		err = validate(listener, n.ID)
	}
	if err != nil {
		answerNotif(listener, n.ID, err)
		return
	}
	fd, err := s.carryOut(c, n.ID, call)
	switch {
	case err == errPending:
		// Answered once the FIFO's other end opens.
	case fd >= 0 && err == nil:
		answerNotifFD(listener, n.ID, fd, call.flags)
	default:
		answerNotif(listener, n.ID, err)
	}
}
