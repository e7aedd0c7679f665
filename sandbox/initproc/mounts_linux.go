package initproc

import (
	"errors"
	"fmt"
	"sort"

	"golang.org/x/sys/unix"
)

// mountOp is one mount a Request asks for.
type mountOp int

const (
	opPin mountOp = iota
	opWritable
	opProtect
	opHideFile
	opHideDir
)

// mountRequest makes the Request's mounts, parents before children: a
// submodule's git dir is bound writable inside the read-only
// .git/modules before its hooks are covered again, and a secret's
// directory is pinned before the secret is hidden. At one path, the
// order above holds.
func mountRequest(req Request) error {
	var empty emptyTree
	defer empty.close()
	return mountRequestWith(req, &empty)
}

// mountRequestWith is mountRequest covering with empty, which the caller
// closes: closing one dismantles a tmpfs, which a run's first process
// does after its target has started rather than before.
func mountRequestWith(req Request, empty *emptyTree) error {
	if err := stageMounts(req); err != nil {
		return err
	}
	for _, p := range req.ReadOnly {
		if err := readOnlyTree(p); err != nil {
			return err
		}
	}
	type mount struct {
		path string
		op   mountOp
	}
	var ms []mount
	for _, l := range []struct {
		paths []string
		op    mountOp
	}{{req.Pin, opPin}, {req.Writable, opWritable}, {req.Protect, opProtect}, {req.HideFiles, opHideFile}, {req.HideDirs, opHideDir}} {
		for _, p := range l.paths {
			ms = append(ms, mount{p, l.op})
		}
	}
	if len(ms) == 0 {
		return nil
	}
	// Hidden files get stand-ins git finds unchanged (standin_linux.go),
	// made before anything covers them.
	var stand standIns
	defer stand.close()
	if err := stand.prepare(req.HideFiles); err != nil {
		return err
	}
	// A parent is a prefix of its children, so it sorts first.
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].path != ms[j].path {
			return ms[i].path < ms[j].path
		}
		return ms[i].op < ms[j].op
	})
	for _, m := range ms {
		var err error
		switch m.op {
		case opPin:
			if err = unix.Mount(m.path, m.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				err = fmt.Errorf("pin %s: %w", m.path, err)
			}
		case opWritable:
			err = writablePath(m.path)
		case opProtect:
			err = protectPath(m.path)
		case opHideFile:
			var done bool
			if done, err = stand.cover(m.path); !done {
				err = empty.cover(m.path, false)
			}
		case opHideDir:
			err = empty.cover(m.path, true)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readOnlyTree makes the mount at p, and every mount below it,
// read-only. p is bound onto itself first when it is not a mount's root
// (mount_setattr takes only those).
func readOnlyTree(p string) error {
	attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	err := unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW, attr)
	if errors.Is(err, unix.EINVAL) {
		if err = unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err == nil {
			err = unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW, attr)
		}
	}
	if err != nil {
		return fmt.Errorf("make the workspace %s read-only for a command that only reads (needs Linux 5.12 or later): %w", p, err)
	}
	return nil
}

// writablePath binds p onto itself writable. A bind inherits the
// read-only flag of the mount it is cut from, so it is remounted without.
func writablePath(p string) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("keep %s writable: %w", p, err)
	}
	if err := unix.Mount("", p, "", keptFlags(p), ""); err != nil {
		return fmt.Errorf("keep %s writable: %w", p, err)
	}
	return nil
}

// emptyTree is a detached, read-only tmpfs holding one empty file and
// one empty directory, never attached anywhere a process could write
// it: each hidden path gets a clone of one of them mounted over it. The
// zero value makes the tmpfs on its first cover.
type emptyTree struct {
	fd   int
	made bool
}

func (t *emptyTree) make() error {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("hide the workspace's secrets (needs Linux 5.2 or later): %w", err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigSetString(fs, "size", "4k"); err != nil {
		return fmt.Errorf("hide the workspace's secrets: %w", err)
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return fmt.Errorf("hide the workspace's secrets: %w", err)
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return fmt.Errorf("hide the workspace's secrets: %w", err)
	}
	f, err := unix.Openat(mnt, "file", unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o444)
	if err == nil {
		unix.Close(f)
		err = unix.Mkdirat(mnt, "dir", 0o555)
	}
	if err == nil {
		// Clones copy the read-only flag.
		err = unix.MountSetattr(mnt, "", unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	}
	if err != nil {
		unix.Close(mnt)
		return fmt.Errorf("hide the workspace's secrets: %w", err)
	}
	t.fd, t.made = mnt, true
	return nil
}

// cover mounts a clone of the empty file (or directory) over p; a link
// at p is covered itself, not followed.
func (t *emptyTree) cover(p string, dir bool) error {
	if !t.made {
		if err := t.make(); err != nil {
			return err
		}
	}
	name := "file"
	if dir {
		name = "dir"
	}
	fd, err := unix.OpenTree(t.fd, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return fmt.Errorf("hide %s: %w", p, err)
	}
	defer unix.Close(fd)
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, p, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("hide %s: %w", p, err)
	}
	return nil
}

func (t *emptyTree) close() {
	if t.made {
		unix.Close(t.fd)
		t.made = false
	}
}
