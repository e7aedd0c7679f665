//go:build !linux

package sharedfs

import "golang.org/x/sys/unix"

// shared names the local filesystems and takes every other one as shared
// (nfs, smbfs, afpfs, webdav, macFUSE and the unknown).
func shared(st *unix.Statfs_t) bool {
	switch unix.ByteSliceToString(st.Fstypename[:]) {
	case "apfs", "hfs", "ufs", "zfs", "tmpfs", "devfs":
		return false
	}
	return true
}
