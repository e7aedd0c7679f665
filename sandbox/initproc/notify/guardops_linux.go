package notify

import (
	"encoding/binary"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// carryOut makes the entry call asks for, unless the guard refuses it
// (EACCES, as Landlock refuses). An open returns its descriptor.
func (s *Guard) carryOut(c *caller, id uint64, call creatingCall) (int, error) {
	switch call.kind {
	case gcOpen, gcCreat, gcOpenat:
		return s.open(c, id, call)
	case gcMkdir, gcMkdirat:
		return -1, s.mkdir(c, call)
	case gcMknod, gcMknodat:
		return -1, s.mknod(c, call)
	case gcSymlink, gcSymlinkat:
		return -1, s.symlink(c, call)
	case gcLink, gcLinkat:
		return -1, s.link(c, call)
	case gcRename, gcRenameat, gcRenameat2:
		return -1, s.rename(c, call)
	case gcBind:
		return -1, s.bind(c, call)
	}
	return -1, unix.ENOSYS
}

// useUmask sets this thread's umask to the caller's, so the kernel
// applies it (or a directory's default ACL) as it would have.
func useUmask(c *caller) (int, error) {
	m, err := c.umask()
	if err != nil {
		return 0, err
	}
	unix.Umask(m)
	return m, nil
}

// lookup finds the directory holding the entry dirfd and path name, and
// its name there, and refuses a protected one.
func (s *Guard) lookup(c *caller, dirfd int32, path string) (int, string, error) {
	dir, name, err := c.locate(dirfd, path)
	if err != nil {
		return -1, "", err
	}
	if err := s.check(dir, name); err != nil {
		return -1, "", err
	}
	return dir, name, nil
}

func (s *Guard) check(dir int, name string) error {
	refused, err := s.guard.refuses(dir, name)
	if err != nil {
		return err
	}
	if refused {
		return unix.EACCES
	}
	return nil
}

// open opens (and may create) a file. A last component that is a
// symbolic link is followed here, so what it names is checked too: a
// dangling link to .envrc would otherwise create .envrc.
func (s *Guard) open(c *caller, id uint64, call creatingCall) (int, error) {
	umask, err := useUmask(c)
	if err != nil {
		return -1, err
	}
	flags := call.flags
	fd := -1
	jumped, err := c.followLast(call.dirfd, call.path, func(dir int, name string) (int, error) {
		if err := s.check(dir, name); err != nil {
			return -1, err
		}
		var err error
		fd, err = s.openOrWait(&pendingOpen{id: id, dir: dir, name: name, flags: flags, mode: call.mode, umask: umask})
		if err != unix.ELOOP || flags&(unix.O_NOFOLLOW|unix.O_EXCL) != 0 {
			return -1, err
		}
		return c.openat(dir, name, unix.O_NOFOLLOW) // the last component is a link
	})
	if jumped >= 0 {
		// A magic link names a file that is open already: opening it
		// again makes no entry.
		return s.openOrWait(&pendingOpen{id: id, dir: jumped, reopen: true, flags: flags, umask: umask})
	}
	return fd, err
}

func (s *Guard) mkdir(c *caller, call creatingCall) error {
	if _, err := useUmask(c); err != nil {
		return err
	}
	dir, name, err := s.lookup(c, call.dirfd, call.path)
	if err != nil {
		return err
	}
	return unix.Mkdirat(dir, name, call.mode)
}

func (s *Guard) mknod(c *caller, call creatingCall) error {
	if _, err := useUmask(c); err != nil {
		return err
	}
	dir, name, err := s.lookup(c, call.dirfd, call.path)
	if err != nil {
		return err
	}
	return unix.Mknodat(dir, name, call.mode, call.dev)
}

func (s *Guard) symlink(c *caller, call creatingCall) error {
	dir, name, err := s.lookup(c, call.dirfd, call.path)
	if err != nil {
		return err
	}
	return unix.Symlinkat(call.target, dir, name)
}

// link makes a hard link. What it links is found as the kernel would
// (the caller's descriptor for AT_EMPTY_PATH, a last link followed for
// AT_SYMLINK_FOLLOW) and linked through /proc/self/fd, so the kernel
// looks nothing up again.
func (s *Guard) link(c *caller, call creatingCall) error {
	if call.flags&^(unix.AT_EMPTY_PATH|unix.AT_SYMLINK_FOLLOW) != 0 {
		return unix.EINVAL
	}
	dir, name, err := s.lookup(c, call.dirfd, call.path)
	if err != nil {
		return err
	}
	var old int
	switch {
	case call.oldPath == "" && call.flags&unix.AT_EMPTY_PATH != 0:
		// The caller's descriptor itself, or its working directory.
		if old, err = c.start(call.oldDirfd, ""); err != nil {
			return err
		}
	default:
		if old, err = s.resolve(c, call.oldDirfd, call.oldPath, call.flags&unix.AT_SYMLINK_FOLLOW != 0); err != nil {
			return err
		}
	}
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(old), dir, name, unix.AT_SYMLINK_FOLLOW)
}

// resolve opens (O_PATH) what path names, following a last link when
// follow says so.
func (s *Guard) resolve(c *caller, dirfd int32, path string, follow bool) (int, error) {
	fd := -1
	jumped, err := c.followLast(dirfd, path, func(dir int, name string) (int, error) {
		var err error
		if fd, err = c.openat(dir, name, unix.O_NOFOLLOW); err != nil || !follow {
			return -1, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return -1, err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			return -1, nil
		}
		return fd, nil
	})
	if jumped >= 0 {
		return jumped, nil
	}
	return fd, err
}

// rename refuses to bring an entry to a protected name; an exchange
// brings one to both names.
func (s *Guard) rename(c *caller, call creatingCall) error {
	odir, oname, err := c.locate(call.oldDirfd, call.oldPath)
	if err != nil {
		return err
	}
	if call.flags&unix.RENAME_EXCHANGE != 0 {
		if err := s.check(odir, oname); err != nil {
			return err
		}
	}
	ndir, nname, err := s.lookup(c, call.dirfd, call.path)
	if err != nil {
		return err
	}
	return unix.Renameat2(odir, oname, ndir, nname, uint(call.flags))
}

// bind binds the caller's socket here. A unix socket's path is an entry
// like any other; other addresses are bound as given, from the copy
// read once.
func (s *Guard) bind(c *caller, call creatingCall) error {
	sock, err := c.socket(call.sockfd)
	if err != nil {
		return err
	}
	sa := call.addr
	if len(sa) > 2 && binary.NativeEndian.Uint16(sa) == unix.AF_UNIX && sa[2] != 0 {
		path := cString(sa[2:])
		if _, err := useUmask(c); err != nil {
			return err
		}
		dir, name, err := s.lookup(c, unix.AT_FDCWD, path)
		if err != nil {
			return err
		}
		// The name alone, from the directory found: this thread's
		// working directory is its own.
		if err := unix.Fchdir(dir); err != nil {
			return err
		}
		sa = append(append([]byte{sa[0], sa[1]}, name...), 0)
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

// cString is b up to its first NUL.
func cString(b []byte) string {
	for i, x := range b {
		if x == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// socket is a copy of the caller's descriptor sockfd.
func (c *caller) socket(sockfd int) (int, error) {
	pidfd, err := threadPidfd(c.tid, func() (string, error) { return c.statusField("Tgid") })
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
