// Package sharedfs tells the filesystems where a directory's stat need
// not change when its entries do: network filesystems (another machine,
// attribute caching) and FUSE ones (the server reports what it likes).
// A listing cached by a directory's stat is never reused there; the
// protected-path scan and the snapshot walk both follow that rule.
package sharedfs

import "golang.org/x/sys/unix"

// Path reports whether dir lies on such a filesystem. When it cannot
// tell, it says yes: a listing read again is only slower.
func Path(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return true
	}
	return shared(&st)
}

// FD is Path for an open directory.
func FD(fd int) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return true
	}
	return shared(&st)
}
