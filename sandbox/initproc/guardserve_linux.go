package initproc

import (
	"bytes"
	"encoding/binary"
	"errors"
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
	id    uint64
	dir   int // the directory holding the entry, held open
	name  string
	flags int
	mode  uint32
	umask int
}

const pendingRetry = 5 * time.Millisecond

// startGuard starts the guard's thread for a run that may not create
// paths: one that shares neither working directory nor umask with the
// rest of the process, and holds no capability, so the entries it makes
// are made with the caller's rights. It returns once the thread is ready
// for serve.
func startGuard(paths []string) (*guardServer, error) {
	g, err := newCreateGuard(paths)
	if err != nil {
		return nil, err
	}
	s := &guardServer{guard: g, calls: guardCalls[runtime.GOARCH], listener: make(chan int, 1)}
	ready := make(chan error, 1)
	go s.work(ready)
	if err := <-ready; err != nil {
		close(s.listener)
		g.close()
		return nil, err
	}
	return s, nil
}

// serve hands the filter's listener to the guard's thread.
func (s *guardServer) serve(listener int) { s.listener <- listener }

func (s *guardServer) work(ready chan<- error) {
	// Never unlocked: the thread's working directory, umask and
	// capabilities are its own, and it ends with the goroutine.
	runtime.LockOSThread()
	err := unix.Unshare(unix.CLONE_FS)
	if err == nil {
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
		fd, err := openNonblocking(p.dir, p.name, p.flags, p.mode)
		if wouldWait(err, p.flags, p.dir, p.name) {
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
		return unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
	}
	return false
}

// openNonblocking opens name in dir as the caller asked, without
// waiting: an open for writing that finds a FIFO without a reader fails
// with ENXIO, and the caller's own O_NONBLOCK, if it did not ask for it,
// is taken off the descriptor after.
func openNonblocking(dir int, name string, flags int, mode uint32) (int, error) {
	fd, err := unix.Openat(dir, name, flags|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_NOCTTY|unix.O_CLOEXEC, mode)
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

// answer carries out n's call, or refuses it, and replies.
func (s *guardServer) answer(listener int, n *seccompNotif) {
	c, err := openCaller(listener, n)
	if err != nil {
		answerNotif(listener, n.ID, err)
		return
	}
	defer c.close()
	a := n.Args
	fd, flags := -1, 0
	switch s.calls[uint32(n.Nr)] {
	case gcOpen:
		flags = int(int32(a[1]))
		fd, err = s.open(c, n.ID, unix.AT_FDCWD, a[0], flags, uint32(a[2]))
	case gcCreat:
		flags = unix.O_CREAT | unix.O_WRONLY | unix.O_TRUNC
		fd, err = s.open(c, n.ID, unix.AT_FDCWD, a[0], flags, uint32(a[1]))
	case gcOpenat:
		flags = int(int32(a[2]))
		fd, err = s.open(c, n.ID, int32(a[0]), a[1], flags, uint32(a[3]))
	case gcMkdir:
		err = s.mkdir(c, unix.AT_FDCWD, a[0], uint32(a[1]))
	case gcMkdirat:
		err = s.mkdir(c, int32(a[0]), a[1], uint32(a[2]))
	case gcMknod:
		err = s.mknod(c, unix.AT_FDCWD, a[0], uint32(a[1]), int(uint32(a[2])))
	case gcMknodat:
		err = s.mknod(c, int32(a[0]), a[1], uint32(a[2]), int(uint32(a[3])))
	case gcSymlink:
		err = s.symlink(c, a[0], unix.AT_FDCWD, a[1])
	case gcSymlinkat:
		err = s.symlink(c, a[0], int32(a[1]), a[2])
	case gcLink:
		err = s.link(c, unix.AT_FDCWD, a[0], unix.AT_FDCWD, a[1], 0)
	case gcLinkat:
		err = s.link(c, int32(a[0]), a[1], int32(a[2]), a[3], int(int32(a[4])))
	case gcRename:
		err = s.rename(c, unix.AT_FDCWD, a[0], unix.AT_FDCWD, a[1], 0)
	case gcRenameat:
		err = s.rename(c, int32(a[0]), a[1], int32(a[2]), a[3], 0)
	case gcRenameat2:
		err = s.rename(c, int32(a[0]), a[1], int32(a[2]), a[3], uint(uint32(a[4])))
	case gcBind:
		err = s.bind(c, int(int32(a[0])), a[1], int(uint32(a[2])))
	default:
		err = unix.ENOSYS
	}
	switch {
	case err == errPending:
		// Answered once the FIFO's other end opens.
	case fd >= 0 && err == nil:
		answerNotifFD(listener, n.ID, fd, flags)
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

// withUmask sets this thread's umask to the caller's, so the kernel
// applies it (or a directory's default ACL) as it would have.
func withUmask(c *caller) error {
	m, err := c.umask()
	if err != nil {
		return err
	}
	unix.Umask(m)
	return nil
}

// lookup resolves the entry a call names by dirfd and the path at addr:
// the directory that holds it, and its name there. A protected entry is
// refused with EACCES, as Landlock refuses.
func (s *guardServer) lookup(c *caller, dirfd int32, addr uint64) (int, string, error) {
	path, err := c.path(addr)
	if err != nil {
		return -1, "", err
	}
	return s.lookupPath(c, dirfd, path)
}

func (s *guardServer) lookupPath(c *caller, dirfd int32, path string) (int, string, error) {
	start, err := c.start(dirfd, path)
	if err != nil {
		return -1, "", err
	}
	dir, name, err := c.parent(start, path)
	if err != nil {
		return -1, "", err
	}
	if err := s.check(dir, name); err != nil {
		return -1, "", err
	}
	return dir, name, nil
}

func (s *guardServer) check(dir int, name string) error {
	refused, err := s.guard.refuses(dir, name)
	if err != nil {
		return err
	}
	if refused {
		return unix.EACCES
	}
	return nil
}

// errPending says an open waits in the pending list.
var errPending = errors.New("the open waits for the other end of a FIFO")

// open opens (and may create) a file. A last component that is a
// symbolic link is followed here, so what it names is checked too: a
// dangling link to .envrc would otherwise create .envrc.
func (s *guardServer) open(c *caller, id uint64, dirfd int32, addr uint64, flags int, mode uint32) (int, error) {
	path, err := c.path(addr)
	if err != nil {
		return -1, err
	}
	umask, err := c.umask()
	if err != nil {
		return -1, err
	}
	unix.Umask(umask)
	start, err := c.start(dirfd, path)
	if err != nil {
		return -1, err
	}
	for {
		dir, name, err := c.parent(start, path)
		if err != nil {
			return -1, err
		}
		if err := s.check(dir, name); err != nil {
			return -1, err
		}
		fd, err := openNonblocking(dir, name, flags, mode)
		if wouldWait(err, flags, dir, name) {
			held, derr := unix.Dup(dir)
			if derr != nil {
				return -1, derr
			}
			unix.CloseOnExec(held)
			s.pending = append(s.pending, &pendingOpen{id: id, dir: held, name: name, flags: flags, mode: mode, umask: umask})
			return -1, errPending
		}
		if err != unix.ELOOP || flags&(unix.O_NOFOLLOW|unix.O_EXCL) != 0 {
			return fd, err
		}
		link, err := c.openat(dir, name, unix.O_NOFOLLOW)
		if err != nil {
			return -1, err
		}
		jumped, target, err := c.follow(dir, name, link)
		switch {
		case err != nil:
			return -1, err
		case jumped >= 0:
			// A magic link names a file that is open already: opening it
			// again makes no entry.
			return unix.Open("/proc/self/fd/"+strconv.Itoa(jumped), flags&^(unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW)|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		case target == "":
			return -1, unix.ENOENT
		}
		start, path = dir, target
	}
}

func (s *guardServer) mkdir(c *caller, dirfd int32, addr uint64, mode uint32) error {
	if err := withUmask(c); err != nil {
		return err
	}
	dir, name, err := s.lookup(c, dirfd, addr)
	if err != nil {
		return err
	}
	return unix.Mkdirat(dir, name, mode)
}

func (s *guardServer) mknod(c *caller, dirfd int32, addr uint64, mode uint32, dev int) error {
	if err := withUmask(c); err != nil {
		return err
	}
	dir, name, err := s.lookup(c, dirfd, addr)
	if err != nil {
		return err
	}
	return unix.Mknodat(dir, name, mode, dev)
}

func (s *guardServer) symlink(c *caller, targetAddr uint64, dirfd int32, addr uint64) error {
	target, err := c.path(targetAddr)
	if err != nil {
		return err
	}
	dir, name, err := s.lookup(c, dirfd, addr)
	if err != nil {
		return err
	}
	return unix.Symlinkat(target, dir, name)
}

// link makes a hard link. What it links is found as the kernel would
// (the caller's descriptor for AT_EMPTY_PATH, a last link followed for
// AT_SYMLINK_FOLLOW) and linked through /proc/self/fd, so the kernel
// looks nothing up again.
func (s *guardServer) link(c *caller, olddirfd int32, oldAddr uint64, newdirfd int32, newAddr uint64, flags int) error {
	if flags&^(unix.AT_EMPTY_PATH|unix.AT_SYMLINK_FOLLOW) != 0 {
		return unix.EINVAL
	}
	oldPath, err := c.path(oldAddr)
	if err != nil {
		return err
	}
	dir, name, err := s.lookup(c, newdirfd, newAddr)
	if err != nil {
		return err
	}
	var old int
	if oldPath == "" && flags&unix.AT_EMPTY_PATH != 0 {
		if olddirfd == unix.AT_FDCWD {
			old, err = c.openat(c.proc, "cwd", 0)
		} else {
			old, err = c.openat(c.proc, "fd/"+strconv.Itoa(int(olddirfd)), 0)
		}
		if err != nil {
			return unix.EBADF
		}
	} else if old, err = s.resolve(c, olddirfd, oldPath, flags&unix.AT_SYMLINK_FOLLOW != 0); err != nil {
		return err
	}
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(old), dir, name, unix.AT_SYMLINK_FOLLOW)
}

// resolve opens (O_PATH) what path names, following a last link when
// follow says so.
func (s *guardServer) resolve(c *caller, dirfd int32, path string, follow bool) (int, error) {
	start, err := c.start(dirfd, path)
	if err != nil {
		return -1, err
	}
	for {
		dir, name, err := c.parent(start, path)
		if err != nil {
			return -1, err
		}
		fd, err := c.openat(dir, name, unix.O_NOFOLLOW)
		if err != nil || !follow {
			return fd, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return -1, err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			return fd, nil
		}
		jumped, target, err := c.follow(dir, name, fd)
		switch {
		case err != nil:
			return -1, err
		case jumped >= 0:
			return jumped, nil
		case target == "":
			return -1, unix.ENOENT
		}
		start, path = dir, target
	}
}

// rename refuses to bring an entry to a protected name; an exchange
// brings one to both names.
func (s *guardServer) rename(c *caller, olddirfd int32, oldAddr uint64, newdirfd int32, newAddr uint64, flags uint) error {
	oldPath, err := c.path(oldAddr)
	if err != nil {
		return err
	}
	start, err := c.start(olddirfd, oldPath)
	if err != nil {
		return err
	}
	odir, oname, err := c.parent(start, oldPath)
	if err != nil {
		return err
	}
	if flags&unix.RENAME_EXCHANGE != 0 {
		if err := s.check(odir, oname); err != nil {
			return err
		}
	}
	ndir, nname, err := s.lookup(c, newdirfd, newAddr)
	if err != nil {
		return err
	}
	return unix.Renameat2(odir, oname, ndir, nname, flags)
}

// bind binds the caller's socket here. A unix socket's path is an entry
// like any other; other addresses are bound as given, from this copy of
// them.
func (s *guardServer) bind(c *caller, sockfd int, addr uint64, alen int) error {
	if alen < 0 || alen > unix.SizeofSockaddrAny {
		return unix.EINVAL
	}
	sa := make([]byte, alen)
	if alen > 0 {
		mem, err := unix.Openat(c.proc, "mem", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return unix.EFAULT
		}
		_, err = unix.Pread(mem, sa, int64(addr))
		unix.Close(mem)
		if err != nil {
			return unix.EFAULT
		}
	}
	sock, err := c.socket(sockfd)
	if err != nil {
		return err
	}
	if alen > 2 && binary.NativeEndian.Uint16(sa) == unix.AF_UNIX && sa[2] != 0 {
		path := sa[2:]
		if i := bytes.IndexByte(path, 0); i >= 0 {
			path = path[:i]
		}
		dir, name, err := s.lookupPath(c, unix.AT_FDCWD, string(path))
		if err != nil {
			return err
		}
		// The name alone, from the directory found: this thread's
		// working directory is its own.
		if err := unix.Fchdir(dir); err != nil {
			return err
		}
		sa = append(append(sa[:2:2], name...), 0)
	}
	var p unsafe.Pointer
	if len(sa) > 0 {
		p = unsafe.Pointer(&sa[0])
	}
	if _, _, e := unix.Syscall(unix.SYS_BIND, uintptr(sock), uintptr(p), uintptr(len(sa))); e != 0 {
		return e
	}
	return nil
}

// socket is a copy of the caller's descriptor sockfd.
func (c *caller) socket(sockfd int) (int, error) {
	pidfd, err := unix.PidfdOpen(c.tid, unix.PIDFD_THREAD)
	if err == unix.EINVAL {
		// Before Linux 6.9, a pidfd names a process, not a thread.
		tgid, terr := c.statusField("Tgid")
		if terr != nil {
			return -1, terr
		}
		n, _ := strconv.Atoi(tgid)
		pidfd, err = unix.PidfdOpen(n, 0)
	}
	if err != nil {
		return -1, unix.ESRCH
	}
	defer unix.Close(pidfd)
	fd, err := unix.PidfdGetfd(pidfd, sockfd, 0)
	if err != nil {
		return -1, unix.EBADF
	}
	return c.keep(fd), nil
}
