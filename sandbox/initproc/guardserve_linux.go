package initproc

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// guardSlack is room in RLIMIT_NPROC for the guard's thread and threads
// the Go runtime may add while it waits in the kernel.
const guardSlack = 3

// guardServer makes the entries a run's creating calls ask for, except
// the ones its createGuard refuses (see guardfilter_linux.go). One
// thread answers every call, in turn: each takes microseconds, since an
// open that would wait (a FIFO with no reader yet) waits in the
// pending list instead of on the thread.
type guardServer struct {
	guard    *createGuard
	calls    map[uint32]guardCall
	listener chan int
	pending  []*pendingOpen
}

// pendingOpen is an open that waits for the other end of a FIFO, tried
// again every pendingRetry.
type pendingOpen struct {
	id uint64
	// dir holds the entry name; for a reopen, dir is the file a magic
	// link named (O_PATH), opened again through /proc/self/fd.
	dir    int
	name   string
	reopen bool
	flags  int
	mode   uint32
	umask  int
}

// try opens p without waiting.
func (p *pendingOpen) try() (int, error) {
	if p.reopen {
		return reopenNonblocking(p.dir, p.flags)
	}
	return openNonblocking(p.dir, p.name, p.flags, p.mode)
}

// waits reports whether p's caller would still be waiting where try
// failed with err.
func (p *pendingOpen) waits(err error) bool { return wouldWait(err, p.flags, p.dir, p.name) }

// openOrWait opens p, or puts it in the pending list (errPending) when
// the caller's open would wait.
func (s *guardServer) openOrWait(p *pendingOpen) (int, error) {
	fd, err := p.try()
	if !p.waits(err) {
		return fd, err
	}
	held, err := unix.Dup(p.dir)
	if err != nil {
		return -1, err
	}
	unix.CloseOnExec(held)
	p.dir = held
	s.pending = append(s.pending, p)
	return -1, errPending
}

const pendingRetry = 5 * time.Millisecond

// startGuard starts the guard's thread for a run that may not create
// paths: one that shares neither working directory nor umask with the
// rest of the process, and holds no capability when the target holds
// none (dropCaps), so the entries it makes are made with the caller's
// rights. It returns once the thread is ready for serve.
func startGuard(paths []string, dropCaps bool) (*guardServer, error) {
	g, err := newCreateGuard(paths)
	if err != nil {
		return nil, err
	}
	s := &guardServer{guard: g, calls: guardCalls[runtime.GOARCH], listener: make(chan int, 1)}
	ready := make(chan error, 1)
	go s.work(ready, dropCaps)
	if err := <-ready; err != nil {
		close(s.listener)
		g.close()
		return nil, err
	}
	return s, nil
}

// serve hands the filter's listener to the guard's thread.
func (s *guardServer) serve(listener int) { s.listener <- listener }

// handGuard installs the guard's filter on this thread, which execs the
// target next, and sends its listener to the supervisor over sock
// (Config.GuardFD), then closes both.
func handGuard(sock int) error {
	defer unix.Close(sock)
	l, err := installGuardFilter()
	if err != nil {
		return err
	}
	defer unix.Close(l)
	if err := unix.Sendmsg(sock, []byte{0}, unix.UnixRights(l), nil, 0); err != nil {
		return fmt.Errorf("hand the creation guard to the supervisor: %w", err)
	}
	return nil
}

// receiveGuard waits on sock for the target's listener and serves it.
// A target's stage that failed before sends nothing, and its exit closes
// the socket.
func (s *guardServer) receiveGuard(sock int) {
	defer unix.Close(sock)
	if fd, _, err := receiveFD(sock, make([]byte, 1)); err == nil {
		s.serve(fd)
	}
}

func (s *guardServer) work(ready chan<- error, dropCaps bool) {
	// Never unlocked: the thread's working directory, umask and
	// capabilities are its own, and it ends with the goroutine.
	runtime.LockOSThread()
	err := unix.Unshare(unix.CLONE_FS)
	if err == nil && dropCaps {
		err = dropThreadCaps()
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
		var notif seccompNotif
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&notif))); e != 0 {
			continue // a caller that went away before we read its call
		}
		s.answer(listener, &notif)
		if len(s.pending) > 0 {
			s.retryPending(listener)
		}
	}
}

// retryPending tries each waiting open again; one whose caller is gone
// is dropped.
func (s *guardServer) retryPending(listener int) {
	kept := s.pending[:0]
	for _, p := range s.pending {
		id := p.id
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), ioctlNotifIDValid, uintptr(unsafe.Pointer(&id))); e != 0 {
			unix.Close(p.dir)
			continue
		}
		unix.Umask(p.umask)
		fd, err := p.try()
		if p.waits(err) {
			kept = append(kept, p)
			continue
		}
		unix.Close(p.dir)
		if err != nil {
			answerNotif(listener, p.id, err)
			continue
		}
		answerNotifFD(listener, p.id, fd, p.flags)
	}
	s.pending = kept
}

// wouldWait reports whether the caller's own open, which did not ask
// for O_NONBLOCK, would still be waiting where openNonblocking failed
// with err: for the reader of a FIFO (ENXIO, which a socket or a device
// without a driver gives too), or for a lease (EAGAIN).
func wouldWait(err error, flags, dir int, name string) bool {
	if flags&unix.O_NONBLOCK != 0 {
		return false
	}
	switch err {
	case unix.EAGAIN:
		return true
	case unix.ENXIO:
		var st unix.Stat_t
		at := unix.AT_SYMLINK_NOFOLLOW
		if name == "" {
			at |= unix.AT_EMPTY_PATH // dir is the file itself
		}
		return unix.Fstatat(dir, name, &st, at) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
	}
	return false
}

// openNonblocking opens name in dir as the caller asked, without
// waiting: an open for writing that finds a FIFO without a reader fails
// with ENXIO, and O_NONBLOCK, if the caller did not ask for it, is taken
// off the descriptor after. A file it makes anew cannot be a FIFO, so
// that is tried first, as most opens that may create do create.
func openNonblocking(dir int, name string, flags int, mode uint32) (int, error) {
	const own = unix.O_NOFOLLOW | unix.O_NOCTTY | unix.O_CLOEXEC
	if flags&(unix.O_CREAT|unix.O_EXCL) == unix.O_CREAT {
		fd, err := unix.Openat(dir, name, flags|unix.O_EXCL|own, mode)
		if err != unix.EEXIST {
			return fd, err
		}
	}
	fd, err := unix.Openat(dir, name, flags|unix.O_NONBLOCK|own, mode)
	return blockingAsAsked(fd, err, flags)
}

// reopenNonblocking opens the file open at fd (O_PATH) again as the
// caller asked, through /proc/self/fd: nothing is created, and, as for
// openNonblocking, nothing waits.
func reopenNonblocking(fd, flags int) (int, error) {
	flags &^= unix.O_CREAT | unix.O_EXCL | unix.O_NOFOLLOW
	nfd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), flags|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	return blockingAsAsked(nfd, err, flags)
}

// blockingAsAsked takes O_NONBLOCK off fd, opened with it, unless flags
// (the caller's) asked for it.
func blockingAsAsked(fd int, err error, flags int) (int, error) {
	if err != nil || flags&unix.O_NONBLOCK != 0 {
		return fd, err
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// dropThreadCaps empties the calling thread's capability sets.
func dropThreadCaps() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	return unix.Capset(&hdr, &data[0])
}

// answer decodes n's call, checks that its caller still waits for it,
// then carries it out or refuses it, and replies.
func (s *guardServer) answer(listener int, n *seccompNotif) {
	c, err := openCaller(listener, n)
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

// answerNotif answers call id with err, or success.
func answerNotif(listener int, id uint64, err error) {
	resp := seccompNotifResp{ID: id}
	if err != nil {
		resp.Error = -int32(errnoOf(err))
	}
	_, _, _ = unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
}

// seccompNotifAddFD is struct seccomp_notif_addfd.
type seccompNotifAddFD struct {
	ID         uint64
	Flags      uint32
	SrcFD      uint32
	NewFD      uint32
	NewFDFlags uint32
}

// answerNotifFD puts fd into the caller, as the result of its open, and
// closes it here. The caller's descriptor is close-on-exec as it asked.
func answerNotifFD(listener int, id uint64, fd, flags int) {
	defer unix.Close(fd)
	add := seccompNotifAddFD{ID: id, Flags: addFDFlagSend, SrcFD: uint32(fd)}
	if flags&unix.O_CLOEXEC != 0 {
		add.NewFDFlags = unix.O_CLOEXEC
	}
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), ioctlNotifAddFD, uintptr(unsafe.Pointer(&add)))
	if e != 0 && e != unix.ENOENT {
		answerNotif(listener, id, e) // EMFILE: the caller is out of descriptors
	}
}

func errnoOf(err error) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) && e != 0 {
		return e
	}
	return unix.EACCES
}
