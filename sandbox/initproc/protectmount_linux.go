package initproc

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// protectPath covers p with a read-only bind mount of itself. The bind
// is recursive so paths hidden below stay hidden. Flags the mount
// already has are kept: the kernel refuses to clear locked ones.
//
// A protected name that is a symbolic link (.claude -> dotfiles/claude,
// or a placeholder for a missing name) is pinned itself, so it cannot be
// removed, renamed or replaced by a directory of the sandbox's making;
// its target, when the sandbox can see it, is covered read-only like
// any other protected path.
func protectPath(p string) error {
	if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 {
		if err := pinLink(p); err != nil {
			return err
		}
		if _, err := os.Stat(p); err != nil {
			return nil // dangling, or pointing where the sandbox cannot see
		}
	}
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("protect %s: %w", p, err)
	}
	if err := unix.Mount("", p, "", keptFlags(p)|unix.MS_RDONLY, ""); err != nil {
		return fmt.Errorf("make %s read-only: %w", p, err)
	}
	return nil
}

// keptFlags are the flags to remount the bind at p with: bind, nosuid,
// nodev and whatever of noexec and the atime flags it has already.
func keptFlags(p string) uintptr {
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_NOSUID | unix.MS_NODEV)
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err == nil {
		for _, f := range [][2]uintptr{
			{unix.ST_NOEXEC, unix.MS_NOEXEC},
			{unix.ST_NOATIME, unix.MS_NOATIME},
			{unix.ST_NODIRATIME, unix.MS_NODIRATIME},
			{unix.ST_RELATIME, unix.MS_RELATIME},
		} {
			if uintptr(st.Flags)&f[0] != 0 {
				flags |= f[1]
			}
		}
	}
	return flags
}

// pinLink mounts the symbolic link p on itself: a mount point cannot be
// unlinked or renamed over. open_tree with AT_SYMLINK_NOFOLLOW clones the
// link rather than its target, and move_mount does not follow the link it
// mounts on.
func pinLink(p string) error {
	fd, err := unix.OpenTree(unix.AT_FDCWD, p, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return fmt.Errorf("keep the symbolic link %s read-only (replace it with what it points to if this kernel is older than 5.2): %w", p, err)
	}
	defer unix.Close(fd)
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, p, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("keep the symbolic link %s read-only: %w", p, err)
	}
	return nil
}
