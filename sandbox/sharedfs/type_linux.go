package sharedfs

import "golang.org/x/sys/unix"

func shared(st *unix.Statfs_t) bool {
	switch uint32(st.Type) {
	case unix.NFS_SUPER_MAGIC, unix.SMB_SUPER_MAGIC, unix.SMB2_SUPER_MAGIC, unix.CIFS_SUPER_MAGIC,
		unix.FUSE_SUPER_MAGIC, unix.CEPH_SUPER_MAGIC, unix.V9FS_MAGIC, unix.AFS_SUPER_MAGIC,
		unix.AFS_FS_MAGIC, unix.CODA_SUPER_MAGIC, unix.NCP_SUPER_MAGIC, unix.OCFS2_SUPER_MAGIC:
		return true
	}
	return false
}
