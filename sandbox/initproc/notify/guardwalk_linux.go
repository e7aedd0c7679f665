package notify

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The guard resolves a caller's paths itself, one component at a time
// from the caller's own root, working directory or descriptor, and then
// makes the entry relative to the directory it found. Whatever the
// caller changes in its memory or its tree meanwhile, the entry the
// guard checked is the entry it makes.
//
// Symbolic links are followed as the kernel would for the caller. Links
// in /proc are the exception: /proc/self would name the guard, so it
// names the caller; and a magic link (/proc/PID/fd/N, cwd, root) is
// followed by the kernel, which lands on the file it names without
// making anything.

// maxLinks is the kernel's bound on symbolic links in one lookup.
const maxLinks = 40

// caller is the task a notification came from, as the guard sees it.
type caller struct {
	tid int
	// proc is /proc/TID, opened before the notification was found still
	// pending, so it is the caller's and not a task's that took its id
	// since.
	proc     int
	root     int // the caller's root, opened on first use
	rootStat unix.Stat_t
	status   []byte // /proc/TID/status, read on first use
	links    int    // symbolic links followed in this call
	fds      []int  // closed when the call is answered
}

// openCaller opens the /proc directory of n's caller. Only once
// validate has found n still waiting does it, and what was read from the
// caller's memory before, belong to the caller rather than to a task that
// took its id since.
func openCaller(n *seccompNotif) (*caller, error) {
	fd, err := unix.Open("/proc/"+strconv.Itoa(int(n.Pid)), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, unix.ESRCH
	}
	return &caller{tid: int(n.Pid), proc: fd, root: -1}, nil
}

func (c *caller) close() {
	for _, fd := range c.fds {
		unix.Close(fd)
	}
	unix.Close(c.proc)
}

// keep closes fd when the call is answered.
func (c *caller) keep(fd int) int {
	c.fds = append(c.fds, fd)
	return fd
}

// openat is openat(2) for an O_PATH descriptor the call keeps.
func (c *caller) openat(dir int, name string, flags int) (int, error) {
	fd, err := unix.Openat(dir, name, flags|unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	return c.keep(fd), nil
}

// string reads a NUL-terminated string of at most max bytes (NUL
// included) at addr in the caller's memory.
func (c *caller) string(addr uint64, max int) (string, error) {
	b, err := c.read(addr, max)
	if err != nil {
		return "", err
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return string(b[:i]), nil
	}
	if len(b) < max {
		return "", unix.EFAULT
	}
	return "", unix.ENAMETOOLONG
}

// bytes reads n bytes at addr in the caller's memory.
func (c *caller) bytes(addr uint64, n int) ([]byte, error) {
	b, err := c.read(addr, n)
	if err == nil && len(b) != n {
		err = unix.EFAULT
	}
	return b, err
}

// read reads up to n bytes at addr in the caller's memory: a read stops
// at the first page it cannot read, where a string may just have ended.
func (c *caller) read(addr uint64, n int) ([]byte, error) {
	if addr == 0 || n <= 0 {
		return nil, unix.EFAULT
	}
	buf := make([]byte, n)
	local := []unix.Iovec{{Base: &buf[0]}}
	local[0].SetLen(n)
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: n}}
	got, err := unix.ProcessVMReadv(c.tid, local, remote, 0)
	if err != nil || got <= 0 {
		return nil, unix.EFAULT
	}
	return buf[:got], nil
}

// path reads a path argument.
func (c *caller) path(addr uint64) (string, error) {
	return c.string(addr, unix.PathMax)
}

// statusField is a field of /proc/TID/status ("Umask", "Tgid").
func (c *caller) statusField(name string) (string, error) {
	if c.status == nil {
		b, err := readStatus(c.proc, 2048) // Umask and Tgid are in the first lines
		if err != nil {
			return "", unix.ESRCH
		}
		c.status = b
	}
	v, ok := statusValue(c.status, name)
	if !ok {
		return "", unix.ESRCH
	}
	return v, nil
}

// readStatus reads the first size bytes of the status file in the
// /proc/PID (or task/TID) directory open at dir.
func readStatus(dir, size int) ([]byte, error) {
	fd, err := unix.Openat(dir, "status", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	b := make([]byte, size)
	n, err := unix.Read(fd, b)
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}

// statusValue is the value of field name in status, a status file.
func statusValue(status []byte, name string) (string, bool) {
	key := []byte("\n" + name + ":")
	i := bytes.Index(status, key)
	if i < 0 {
		return "", false
	}
	v := status[i+len(key):]
	if j := bytes.IndexByte(v, '\n'); j >= 0 {
		v = v[:j]
	}
	return strings.TrimSpace(string(v)), true
}

// umask is the caller's file mode creation mask.
func (c *caller) umask() (int, error) {
	v, err := c.statusField("Umask")
	if err != nil {
		return 0, err
	}
	m, err := strconv.ParseUint(v, 8, 32)
	if err != nil {
		return 0, unix.ESRCH
	}
	return int(m), nil
}

// rootDir is the caller's root directory.
func (c *caller) rootDir() (int, error) {
	if c.root >= 0 {
		return c.root, nil
	}
	fd, err := c.openat(c.proc, "root", unix.O_DIRECTORY)
	if err != nil {
		return -1, unix.ENOENT
	}
	if err := unix.Fstat(fd, &c.rootStat); err != nil {
		return -1, err
	}
	c.root = fd
	return fd, nil
}

// start is where the caller's lookup of path begins: its root for an
// absolute path, its working directory for AT_FDCWD, else descriptor
// dirfd.
func (c *caller) start(dirfd int32, path string) (int, error) {
	switch {
	case strings.HasPrefix(path, "/"):
		return c.rootDir()
	case dirfd == unix.AT_FDCWD:
		fd, err := c.openat(c.proc, "cwd", 0)
		if err != nil {
			return -1, unix.ENOENT
		}
		return fd, nil
	case dirfd < 0:
		return -1, unix.EBADF
	}
	fd, err := c.openat(c.proc, "fd/"+strconv.Itoa(int(dirfd)), 0)
	if err != nil {
		return -1, unix.EBADF
	}
	return fd, nil
}

// locate finds the directory holding the entry dirfd and path name, and
// its name there.
func (c *caller) locate(dirfd int32, path string) (int, string, error) {
	start, err := c.start(dirfd, path)
	if err != nil {
		return -1, "", err
	}
	return c.parent(start, path)
}

// followLast walks path from dirfd as a call that follows a last
// symbolic link does. At each end of the walk it calls at with the
// directory found and the name there; at returns the link open there to
// follow on, or -1 where the walk ends. followLast returns where a magic
// link landed (an O_PATH descriptor), or -1.
func (c *caller) followLast(dirfd int32, path string, at func(dir int, name string) (link int, err error)) (int, error) {
	start, err := c.start(dirfd, path)
	if err != nil {
		return -1, err
	}
	for {
		dir, name, err := c.parent(start, path)
		if err != nil {
			return -1, err
		}
		link, err := at(dir, name)
		if err != nil || link < 0 {
			return -1, err
		}
		jumped, target, err := c.follow(dir, name, link)
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

// parent resolves all of path but its last component, beginning at
// start, and returns the directory it found and that last component
// ("." for the root; a trailing slash kept, so the kernel treats the
// entry as it would have).
func (c *caller) parent(start int, path string) (int, string, error) {
	if path == "" {
		return -1, "", unix.ENOENT
	}
	comps, last := splitPath(path)
	cur := start
	if strings.HasPrefix(path, "/") {
		root, err := c.rootDir()
		if err != nil {
			return -1, "", err
		}
		cur = root
	}
	for len(comps) > 0 {
		name := comps[0]
		comps = comps[1:]
		switch name {
		case ".":
			continue
		case "..":
			if c.isRoot(cur) {
				continue
			}
			fd, err := c.openat(cur, "..", unix.O_DIRECTORY)
			if err != nil {
				return -1, "", err
			}
			cur = fd
			continue
		}
		fd, err := c.openat(cur, name, unix.O_NOFOLLOW)
		if err != nil {
			return -1, "", err
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return -1, "", err
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			cur = fd
		case unix.S_IFLNK:
			jumped, target, err := c.follow(cur, name, fd)
			switch {
			case err != nil:
				return -1, "", err
			case jumped >= 0:
				if err := unix.Fstat(jumped, &st); err != nil {
					return -1, "", err
				}
				if st.Mode&unix.S_IFMT != unix.S_IFDIR {
					return -1, "", unix.ENOTDIR
				}
				cur = jumped
			case target == "":
				return -1, "", unix.ENOENT
			default:
				comps = append(components(target), comps...)
				if strings.HasPrefix(target, "/") {
					if cur, err = c.rootDir(); err != nil {
						return -1, "", err
					}
				}
			}
		default:
			return -1, "", unix.ENOTDIR
		}
	}
	if err := c.notOurs(cur); err != nil {
		return -1, "", err
	}
	return cur, last, nil
}

// follow follows the symbolic link name in dir, open at link: it
// returns either where a magic link landed (an O_PATH descriptor) or
// the link's text, to be looked up from dir.
func (c *caller) follow(dir int, name string, link int) (int, string, error) {
	if c.links++; c.links > maxLinks {
		return -1, "", unix.ELOOP
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(dir, &fs); err != nil {
		return -1, "", err
	}
	if fs.Type == unix.PROC_SUPER_MAGIC {
		var st unix.Stat_t
		if err := unix.Fstat(dir, &st); err != nil {
			return -1, "", err
		}
		if st.Ino != 1 {
			// Below /proc/PID: a magic link. The kernel follows it to the
			// file it names, seen as that process sees it.
			if err := c.notOurs(dir); err != nil {
				return -1, "", err
			}
			fd, err := c.openat(dir, name, 0)
			return fd, "", err
		}
		if name == "self" || name == "thread-self" {
			var own unix.Stat_t
			if err := unix.Fstat(c.proc, &own); err != nil || st.Dev != own.Dev {
				return -1, "", unix.EACCES // another procfs: its numbers are not ours
			}
			tgid, err := c.statusField("Tgid")
			if err != nil {
				return -1, "", err
			}
			if name == "self" {
				return -1, tgid, nil
			}
			return -1, tgid + "/task/" + strconv.Itoa(c.tid), nil
		}
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(link, "", buf)
	if err != nil {
		return -1, "", err
	}
	return -1, string(buf[:n]), nil
}

// notOurs refuses a directory in /proc that belongs to the guard's own
// process: the kernel lets a thread into its own process's entries (its
// memory, its descriptors, its working directory) without the checks it
// makes of any other caller, and the guard is in the process the run
// must not reach. Elsewhere in /proc the guard's thread has the caller's
// rights, and the kernel's checks hold as they would.
func (c *caller) notOurs(dir int) error {
	var fs unix.Statfs_t
	if err := unix.Fstatfs(dir, &fs); err != nil {
		return err
	}
	if fs.Type != unix.PROC_SUPER_MAGIC {
		return nil
	}
	d := dir
	for range 8 {
		var st unix.Stat_t
		if err := unix.Fstat(d, &st); err != nil {
			return err
		}
		if st.Ino == 1 {
			return nil // /proc itself, or /proc/sys and the like: no process's
		}
		if tgid, ok := tgidOf(d); ok {
			if tgid == os.Getpid() {
				return unix.EACCES
			}
			return nil
		}
		up, err := c.openat(d, "..", unix.O_DIRECTORY)
		if err != nil {
			return err
		}
		d = up
	}
	return unix.EACCES
}

// tgidOf reads the thread group of the /proc/PID (or task/TID)
// directory open at d; false for a directory that is neither.
func tgidOf(d int) (int, bool) {
	status, err := readStatus(d, 512)
	if err != nil {
		return 0, false
	}
	v, ok := statusValue(status, "Tgid")
	if !ok {
		return 0, false
	}
	tgid, err := strconv.Atoi(v)
	return tgid, err == nil
}

// isRoot reports whether dir is the caller's root, where ".." stays.
func (c *caller) isRoot(dir int) bool {
	if _, err := c.rootDir(); err != nil {
		return false
	}
	var st unix.Stat_t
	return unix.Fstat(dir, &st) == nil && st.Dev == c.rootStat.Dev && st.Ino == c.rootStat.Ino
}

// splitPath splits path into the components to walk and the last one,
// which keeps a trailing slash; the root alone is ".".
func splitPath(path string) (walk []string, last string) {
	walk = components(path)
	if len(walk) == 0 {
		return nil, "."
	}
	last = walk[len(walk)-1]
	if strings.HasSuffix(path, "/") {
		last += "/"
	}
	return walk[:len(walk)-1], last
}

// components are path's names, without the empty ones that slashes make.
func components(path string) []string {
	var out []string
	for _, p := range strings.Split(path, "/") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
