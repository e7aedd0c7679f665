package initproc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"unsafe"

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
	procDev  uint64 // the device of the procfs proc lies on
	status   []byte // /proc/TID/status, read on first use
	links    int    // symbolic links followed in this call
	fds      []int  // closed when the call is answered
}

// openCaller opens the caller of n's /proc directory and checks that n
// still waits: only then does the directory name its caller.
func openCaller(listener int, n *seccompNotif) (*caller, error) {
	fd, err := unix.Open("/proc/"+strconv.Itoa(int(n.Pid)), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, unix.ESRCH
	}
	id := n.ID
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), ioctlNotifIDValid, uintptr(unsafe.Pointer(&id))); e != 0 {
		unix.Close(fd)
		return nil, unix.ESRCH
	}
	c := &caller{tid: int(n.Pid), proc: fd, root: -1}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		c.close()
		return nil, err
	}
	c.procDev = st.Dev
	return c, nil
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
// included) at addr in the caller's memory, a page at a time, since the
// string may end just before memory it cannot read.
func (c *caller) string(addr uint64, max int) (string, error) {
	if addr == 0 {
		return "", unix.EFAULT
	}
	fd, err := unix.Openat(c.proc, "mem", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", unix.EFAULT
	}
	defer unix.Close(fd)
	page := uint64(os.Getpagesize())
	var out []byte
	for len(out) < max {
		n := min(int(page-(addr%page)), max-len(out))
		buf := make([]byte, n)
		got, err := unix.Pread(fd, buf, int64(addr))
		if err != nil || got <= 0 {
			return "", unix.EFAULT
		}
		if i := bytes.IndexByte(buf[:got], 0); i >= 0 {
			return string(append(out, buf[:i]...)), nil
		}
		out = append(out, buf[:got]...)
		addr += uint64(got)
	}
	return "", unix.ENAMETOOLONG
}

// path reads a path argument.
func (c *caller) path(addr uint64) (string, error) {
	return c.string(addr, unix.PathMax)
}

// statusField is a field of /proc/TID/status ("Umask", "Tgid").
func (c *caller) statusField(name string) (string, error) {
	if c.status == nil {
		fd, err := unix.Openat(c.proc, "status", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", unix.ESRCH
		}
		f := os.NewFile(uintptr(fd), "status")
		b := make([]byte, 4096)
		n, _ := f.Read(b)
		f.Close()
		c.status = b[:n]
	}
	for _, line := range strings.Split(string(c.status), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", unix.ESRCH
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
			fd, err := c.openat(dir, name, 0)
			return fd, "", err
		}
		if name == "self" || name == "thread-self" {
			if st.Dev != c.procDev {
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
