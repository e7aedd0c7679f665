package workspace

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"
)

// Flags for directories that are only walked through, never read.
const dirPathFlags = unix.O_PATH | unix.O_DIRECTORY

var (
	openat2Once sync.Once
	openat2OK   bool
	// forceWalk makes tests exercise the fallback on kernels with openat2.
	forceWalk bool
)

// haveOpenat2 probes once: openat2 is missing before Linux 5.6 and some
// seccomp profiles answer it with EPERM or ENOSYS.
func haveOpenat2() bool {
	openat2Once.Do(func() {
		fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC})
		if err == nil {
			unix.Close(fd)
			openat2OK = true
		}
	})
	return openat2OK
}

// openBeneath opens rel below dirfd; the kernel refuses any symlink on the
// way (ELOOP) and any step out of dirfd (EXDEV).
func openBeneath(dirfd int, rel string, flags int, mode uint32) (int, error) {
	if err := checkRel(rel); err != nil {
		return -1, err
	}
	if forceWalk || !haveOpenat2() {
		return walkOpen(dirfd, rel, flags, mode)
	}
	// No O_NOFOLLOW: RESOLVE_NO_SYMLINKS already refuses a final symlink
	// with ELOOP, while O_PATH|O_NOFOLLOW would open the link itself.
	how := unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_SYMLINKS,
	}
	if flags&unix.O_CREAT != 0 {
		how.Mode = uint64(mode)
	}
	for tries := 0; ; tries++ {
		fd, err := unix.Openat2(dirfd, rel, &how)
		// EAGAIN: a concurrent rename somewhere made the kernel unsure; it
		// asks us to retry rather than guess.
		if (errors.Is(err, unix.EAGAIN) && tries < 16) || errors.Is(err, unix.EINTR) {
			continue
		}
		return fd, err
	}
}
