//go:build !linux

package snapshot

import (
	"strings"

	"golang.org/x/sys/unix"
)

// sharedFS: see fstype_linux.go. On macOS the filesystem's type name says
// it (nfs, smbfs, afpfs, webdav, and the FUSE ports).
func sharedFS(fd int) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return true
	}
	name := unix.ByteSliceToString(st.Fstypename[:])
	for _, p := range []string{"nfs", "smbfs", "afpfs", "webdav", "osxfuse", "macfuse", "fuse"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
