//go:build linux || darwin

package workspace

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// checkRel insists on the clean, relative, symlink-resolved form Resolve
// produces, so the walk below never meets "." or "..".
func checkRel(rel string) error {
	if rel == "." {
		return nil
	}
	if rel == "" || strings.HasPrefix(rel, "/") {
		return unix.EINVAL
	}
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." || c == ".." {
			return unix.EINVAL
		}
	}
	return nil
}

// walkOpen is the fallback for kernels without openat2: each directory is
// opened relative to the previous one with O_NOFOLLOW, so a symlink swapped
// in at any step fails the open with ELOOP instead of being followed.
func walkOpen(dirfd int, rel string, flags int, mode uint32) (int, error) {
	comps := strings.Split(rel, "/")
	cur, owned := dirfd, false
	defer func() {
		if owned {
			unix.Close(cur)
		}
	}()
	for _, c := range comps[:len(comps)-1] {
		fd, err := openatRetry(cur, c, dirPathFlags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, symlinkOr(cur, c, err)
		}
		if owned {
			unix.Close(cur)
		}
		cur, owned = fd, true
	}
	last := comps[len(comps)-1]
	fd, err := openatRetry(cur, last, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	if err != nil {
		return -1, symlinkOr(cur, last, err)
	}
	return fd, nil
}

func openatRetry(dirfd int, name string, flags int, mode uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, mode)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// symlinkOr reports ELOOP when name is a symlink: with O_NOFOLLOW and
// O_DIRECTORY kernels disagree on whether that is ELOOP or ENOTDIR.
func symlinkOr(dirfd int, name string, err error) error {
	if !errors.Is(err, unix.ENOTDIR) && !errors.Is(err, unix.ELOOP) {
		return err
	}
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return unix.ELOOP
	}
	return err
}
