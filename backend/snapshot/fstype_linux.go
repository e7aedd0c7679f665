package snapshot

import "golang.org/x/sys/unix"

// sharedFS reports whether the filesystem holding fd may be changed by
// another machine or a userspace server, where a directory's stat as seen
// here need not change when its entries do (attribute caching, FUSE
// servers that report what they like). A cached listing is not trusted
// there; every directory is read again.
func sharedFS(fd int) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return true
	}
	switch uint32(st.Type) {
	case unix.NFS_SUPER_MAGIC, unix.SMB_SUPER_MAGIC, unix.SMB2_SUPER_MAGIC, unix.CIFS_SUPER_MAGIC,
		unix.FUSE_SUPER_MAGIC, unix.CEPH_SUPER_MAGIC, unix.V9FS_MAGIC, unix.AFS_SUPER_MAGIC,
		unix.AFS_FS_MAGIC, unix.CODA_SUPER_MAGIC, unix.NCP_SUPER_MAGIC, unix.OCFS2_SUPER_MAGIC:
		return true
	}
	return false
}
