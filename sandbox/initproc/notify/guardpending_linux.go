package notify

import (
	"errors"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// An open the guard makes must not wait: one thread answers every call
// of the run. So it opens without waiting, and an open whose caller
// would still be waiting (for the other end of a FIFO) goes into the
// pending list, tried again until it opens or its caller is gone.

// errPending says an open waits in the pending list.
var errPending = errors.New("the open waits for the other end of a FIFO")

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
func (s *Guard) openOrWait(p *pendingOpen) (int, error) {
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

// retryPending tries each waiting open again; one whose caller is gone
// is dropped.
func (s *Guard) retryPending(listener int) {
	kept := s.pending[:0]
	for _, p := range s.pending {
		if validate(listener, p.id) != nil {
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
