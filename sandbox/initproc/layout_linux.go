package initproc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// makeLayout makes the sandbox's fixed mounts while the helper waits
// for its call, then detaches the host's root it cloned them from. bwrap
// binds that root once; were bwrap to bind each path itself, it would
// read the whole mount table again after every bind, about a third of a
// sandbox's start-up cost. Each step here is three system calls of the
// new mount API instead. The host's root is gone, and its directory
// removed, before anything but the helper runs: rmdir fails on a mount
// point, so its success shows the detach took.
func makeLayout(ms []LayoutMount) error {
	if len(ms) == 0 {
		return nil
	}
	return withHostRoot(func(root int) error { return makeSteps(root, ms) })
}

// withHostRoot runs steps with the host's root (HostRoot) open, then
// detaches that root and removes its directory. It is detached even
// after steps failed: the helper exits then, but nothing may find the
// host's root meanwhile.
func withHostRoot(steps func(root int) error) error {
	root, err := unix.Open(HostRoot, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open the host's root at %s: %w", HostRoot, err)
	}
	err = steps(root)
	unix.Close(root)
	if uerr := unix.Unmount(HostRoot, unix.MNT_DETACH); uerr != nil {
		return errors.Join(err, fmt.Errorf("detach the host's root: %w", uerr))
	}
	if rerr := unix.Rmdir(HostRoot); rerr != nil {
		return errors.Join(err, fmt.Errorf("remove the host's root's mount point: %w", rerr))
	}
	return err
}

func makeSteps(root int, ms []LayoutMount) error {
	var empty emptyTree
	defer empty.close()
	for _, m := range ms {
		var err error
		switch m.Kind {
		case MountBind, MountROBind, MountDevBind:
			err = bindFromHost(root, m)
		case MountTmpfs:
			err = mountTmpfs(m.Dst)
		case MountRemountRO:
			err = unix.MountSetattr(unix.AT_FDCWD, m.Dst, unix.AT_SYMLINK_NOFOLLOW,
				&unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
		case MountHideFile:
			if _, serr := os.Lstat(m.Dst); errors.Is(serr, os.ErrNotExist) {
				continue // not in sight here, so nothing to hide
			}
			err = empty.cover(m.Dst, false)
		default:
			err = fmt.Errorf("unknown mount kind %q", m.Kind) // Decode refuses these
		}
		if err != nil {
			return fmt.Errorf("sandbox layout: %s %s: %w", m.Kind, m.Dst, err)
		}
	}
	return nil
}

// bindFromHost clones m.Src, and every mount below it, from the host's
// root and attaches the clone at m.Dst. The source resolves as on the
// host: its links are followed inside the host's root, never out of it.
// Flags are only ever added, as bwrap does: a read-only or nodev host
// mount stays so.
func bindFromHost(root int, m LayoutMount) error {
	return bindWith(root, m, mountPoint)
}

// bindWith is bindFromHost making the mount point with point.
func bindWith(root int, m LayoutMount, point func(dst string, dir bool) error) error {
	rel := strings.TrimPrefix(filepath.Clean(m.Src), "/")
	if rel == "" {
		rel = "."
	}
	src, err := unix.Openat2(root, rel, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS,
	})
	if m.Try && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s on the host: %w", m.Src, err)
	}
	defer unix.Close(src)
	var st unix.Stat_t
	if err := unix.Fstat(src, &st); err != nil {
		return err
	}
	if err := point(m.Dst, st.Mode&unix.S_IFMT == unix.S_IFDIR); err != nil {
		return err
	}
	tree, err := unix.OpenTree(src, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("clone %s: %w", m.Src, err)
	}
	defer unix.Close(tree)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NOSUID}
	if m.Kind != MountDevBind {
		attr.Attr_set |= unix.MOUNT_ATTR_NODEV
	}
	if m.Kind == MountROBind {
		attr.Attr_set |= unix.MOUNT_ATTR_RDONLY
	}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("set the flags of %s: %w", m.Src, err)
	}
	if err := unix.MoveMount(tree, "", unix.AT_FDCWD, m.Dst, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("attach %s: %w", m.Src, err)
	}
	return nil
}

// mountTmpfs mounts an empty tmpfs at dst, as bwrap's --tmpfs does.
func mountTmpfs(dst string) error {
	if err := mountPoint(dst, true); err != nil {
		return err
	}
	mnt, err := freshTmpfs("0755")
	if err != nil {
		return err
	}
	defer unix.Close(mnt)
	return unix.MoveMount(mnt, "", unix.AT_FDCWD, dst, unix.MOVE_MOUNT_F_EMPTY_PATH)
}

// mountPoint makes dst (a directory, or an empty file) and its parents
// when they are missing. As with bwrap, they are made wherever dst
// resolves by then: in the sandbox's own tmpfs mounts, or in a writable
// path an earlier step bound.
func mountPoint(dst string, dir bool) error {
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	if dir {
		return os.MkdirAll(dst, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_RDONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}
