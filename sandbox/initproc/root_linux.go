package initproc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// EnterRoot readies the namespaces this process was started in (a user
// namespace of its own, where it holds every capability, and new mount,
// PID, network, IPC, UTS and cgroup namespaces) for a Root, before the
// Root is known: the mounts copied from the host become slaves (the
// host's changes still reach the sandbox, none of the sandbox's reach
// the host), the host name is set, the loopback brought up, and a fresh
// tmpfs becomes the root, with the host's root below it at HostRoot
// (pivot_root).
func EnterRoot(hostname string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("make the sandbox's mounts its own: %w", err)
	}
	if err := unix.Sethostname([]byte(hostname)); err != nil {
		return fmt.Errorf("set the sandbox's host name: %w", err)
	}
	if err := loopbackUp(); err != nil {
		return err
	}
	return pivotToTmpfs()
}

// MakeRoot makes r once EnterRoot has: what bwrap did for a sandbox, one
// mount(2) and one read of the whole mount table per bind, is done here
// with the new mount API, three system calls a bind. r's steps are made
// in order, each bind cloned from the host's root (bindFromHost: its
// source resolved as on the host, flags only ever added); then the
// host's root is detached and its directory removed (rmdir fails on a
// mount point, so its success shows the detach took), and it enters
// r.Dir. Nothing but this process runs until it returns; a step that
// fails stops it, and the caller runs nothing.
func MakeRoot(r Root) error {
	if err := withHostRoot(func(root int) error { return makeRootSteps(root, r) }); err != nil {
		return err
	}
	if err := sealRoot(); err != nil {
		return err
	}
	if err := os.Chdir(r.Dir); err != nil {
		return fmt.Errorf("enter the working directory: %w", err)
	}
	return nil
}

// sealRoot makes the sandbox's root mount, its own tmpfs, read-only once
// its mounts are made: a write outside every mount (beside the project,
// /srv/x) would otherwise land there, seem to work and vanish with the
// sandbox. Its mounts keep their own modes (no AT_RECURSIVE). Called
// only in a mount namespace of the sandbox's own.
func sealRoot() error {
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("make the sandbox's root read-only: %w", err)
	}
	return nil
}

// pivotToTmpfs makes a fresh tmpfs (mode 0755, nosuid, nodev) the root,
// as bwrap's is, with the old root at HostRoot. The tmpfs is attached
// over /tmp for the moment, as bwrap does: in this mount namespace only.
func pivotToTmpfs() error {
	mnt, err := freshTmpfs("0755")
	if err != nil {
		return fmt.Errorf("make the sandbox's root: %w", err)
	}
	defer unix.Close(mnt)
	if err := unix.MoveMount(mnt, "", unix.AT_FDCWD, "/tmp", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_SYMLINKS); err != nil {
		return fmt.Errorf("attach the sandbox's root: %w", err)
	}
	if err := unix.Fchdir(mnt); err != nil {
		return fmt.Errorf("enter the sandbox's root: %w", err)
	}
	host := filepath.Base(HostRoot)
	if err := unix.Mkdir(host, 0o755); err != nil {
		return fmt.Errorf("make the host's root's mount point: %w", err)
	}
	if err := unix.PivotRoot(".", host); err != nil {
		return fmt.Errorf("enter the sandbox's root (pivot_root): %w", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return err
	}
	return nil
}

// freshTmpfs is a new, detached tmpfs of the given mode, nosuid and
// nodev, named "tmpfs" in the mount table as mount(2) names one.
func freshTmpfs(mode string) (int, error) {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, err
	}
	defer unix.Close(fs)
	if err := unix.FsconfigSetString(fs, "source", "tmpfs"); err != nil {
		return -1, err
	}
	if err := unix.FsconfigSetString(fs, "mode", mode); err != nil {
		return -1, err
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, err
	}
	return unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
}

func makeRootSteps(root int, r Root) error {
	for _, s := range r.Steps {
		if err := makeRootStep(root, s, r.Console); err != nil {
			return fmt.Errorf("sandbox root: %s %s: %w", s.Kind, s.Dst, err)
		}
	}
	return nil
}

func makeRootStep(root int, s RootStep, console string) error {
	switch s.Kind {
	case RootBind, RootROBind, RootDevBind:
		return bindWith(root, LayoutMount{Kind: MountKind(s.Kind), Src: s.Src, Dst: followed(s.Dst), Try: s.Try}, bwrapMountPoint)
	case RootTmpfs:
		dst := followed(s.Dst)
		if err := bwrapMountPoint(dst, true); err != nil {
			return err
		}
		return mountTmpfs(dst)
	case RootRemountRO:
		return unix.MountSetattr(unix.AT_FDCWD, followed(s.Dst), unix.AT_RECURSIVE,
			&unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	case RootSymlink:
		return makeLink(s.Src, s.Dst)
	case RootProc:
		if s.Dst != "/proc" {
			return errors.New("the sandbox's procfs goes at /proc")
		}
		if err := bwrapMountPoint(s.Dst, true); err != nil {
			return err
		}
		return mountProc()
	case RootDev:
		return makeDev(root, s.Dst, console)
	case RootPinLink:
		if st, err := os.Lstat(s.Dst); err != nil || st.Mode()&os.ModeSymlink == 0 {
			return nil // gone, or no longer a link: nothing to pin
		}
		return pinLink(s.Dst)
	}
	return fmt.Errorf("unknown root step kind %q", s.Kind) // DecodeRoot refuses these
}

// followed is dst with its links resolved inside the sandbox, as bwrap's
// mount(2) follows them: a protected name that links to a directory in
// the workspace makes that directory read-only, and a hidden link covers
// what it leads to. A path that does not exist yet is made where it
// resolves (mountPoint).
func followed(dst string) string {
	// Links on the way are followed by every call that takes the path;
	// only the last needs resolving here, and is seldom a link.
	if st, err := os.Lstat(dst); err != nil || st.Mode()&os.ModeSymlink == 0 {
		return dst
	}
	if p, err := filepath.EvalSymlinks(dst); err == nil {
		return p
	}
	return dst
}

// bwrapMountPoint makes dst (a directory, or an empty file) where it is
// missing, with the modes bwrap gives them: missing parents 0700, the
// directory 0755, the file 0444. They are made wherever dst resolves by
// then: in the sandbox's own tmpfs mounts, or in a writable path an
// earlier step bound.
func bwrapMountPoint(dst string, dir bool) error {
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	if dir {
		return os.Mkdir(dst, 0o755)
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_RDONLY, 0o444)
	if err != nil {
		return err
	}
	return f.Close()
}

// makeLink makes dst a link to target; one already there is kept.
func makeLink(target, dst string) error {
	if got, err := os.Readlink(dst); err == nil && got == target {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	return os.Symlink(target, dst)
}

// devNodes are the host's devices a sandbox's /dev shows, as bwrap's --dev.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// makeDev makes the sandbox's /dev at dir as bwrap's --dev does: a tmpfs
// with the host's devNodes bound (nosuid, devices allowed), the links to
// the process's descriptors, core and ptmx, an empty shm directory, a
// devpts instance of the sandbox's own, and the host's terminal at
// console when there is one.
func makeDev(root int, dir, console string) error {
	if err := bwrapMountPoint(dir, true); err != nil {
		return err
	}
	if err := mountTmpfs(dir); err != nil {
		return err
	}
	for _, n := range devNodes {
		if err := bindWith(root, LayoutMount{Kind: MountDevBind, Src: "/dev/" + n, Dst: filepath.Join(dir, n)}, bwrapMountPoint); err != nil {
			return err
		}
	}
	for _, l := range [][2]string{
		{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"}, {"/proc/self/fd/1", "stdout"},
		{"/proc/self/fd/2", "stderr"}, {"/proc/kcore", "core"}, {"pts/ptmx", "ptmx"},
	} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			return err
		}
	}
	for _, d := range []string{"shm", "pts"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	if err := unix.Mount("devpts", filepath.Join(dir, "pts"), "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620"); err != nil {
		return fmt.Errorf("mount %s/pts: %w", dir, err)
	}
	if console != "" {
		if err := bindWith(root, LayoutMount{Kind: MountDevBind, Src: console, Dst: filepath.Join(dir, "console")}, bwrapMountPoint); err != nil {
			return err
		}
	}
	return nil
}
