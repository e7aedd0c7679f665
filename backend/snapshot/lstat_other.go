//go:build !linux || !(amd64 || arm64)

package snapshot

import "golang.org/x/sys/unix"

func lstatAt(dirfd int, name string, _ *[256]byte, st *unix.Stat_t) error {
	return unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
}
