//go:build !linux

package protect

import (
	"bytes"

	"golang.org/x/sys/unix"
)

func sharedFS(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return true
	}
	name := string(bytes.TrimRight(st.Fstypename[:], "\x00"))
	switch name {
	case "apfs", "hfs", "ufs", "zfs", "tmpfs", "devfs":
		return false
	}
	return true // nfs, smbfs, afpfs, webdav, macfuse and the unknown
}
