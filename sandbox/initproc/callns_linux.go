package initproc

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// setupCall makes a zygote's run what a sandbox of its own would be, in
// the namespaces the zygote gave it: its cgroup, a procfs of its PID
// namespace, pseudo-terminals, an empty $HOME and /tmp (each of the
// Fresh directories: /tmp only when the session has none of its own),
// and a loopback.
// The supervisor's thread must stay locked: the cgroup namespace is the
// thread's, and the next stage is started from it.
func setupCall(c CallSetup) error {
	if c.CgroupFD > 0 {
		if err := joinCgroupFD(c.CgroupFD); err != nil {
			return err
		}
		// The run sees its own cgroup as the root, as under bwrap.
		if err := unix.Unshare(unix.CLONE_NEWCGROUP); err != nil {
			return fmt.Errorf("cgroup namespace: %w", err)
		}
	}
	if err := mountProc(); err != nil {
		return err
	}
	if err := mountDevPts(); err != nil {
		return err
	}
	for _, d := range c.Fresh {
		if err := renewDir(d); err != nil {
			return err
		}
	}
	if c.OwnNet {
		if err := loopbackUp(); err != nil {
			return err
		}
	}
	return nil
}

// procCovers are the parts of a procfs made read-only, as bwrap does:
// kernel tunables and triggers a process in the run has no business
// writing, even where its user namespace would let it.
var procCovers = []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"}

// mountProc mounts a procfs of the run's PID namespace over the zygote's:
// the run sees its own processes only, and none of the zygote's.
func mountProc() error {
	const flags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if err := unix.Mount("proc", "/proc", "proc", flags, ""); err != nil {
		return fmt.Errorf("mount the run's /proc: %w", err)
	}
	for _, p := range procCovers {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("cover %s: %w", p, err)
		}
		if err := unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|flags, ""); err != nil {
			return fmt.Errorf("make %s read-only: %w", p, err)
		}
	}
	return nil
}

// mountDevPts gives the sandbox pseudo-terminals: a devpts instance of its
// own, whose ptmx anyone inside may open (/dev/ptmx links to it).
func mountDevPts() error {
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("mount /dev/pts: %w", err)
	}
	return nil
}

// renewDir mounts an empty tmpfs over d.Path and moves the mounts it
// keeps onto it, each at the same path: what the layout put below the
// zygote's directory (a workspace in /tmp, the person's .gitconfig in
// $HOME) stays, and nothing an earlier run wrote there does.
func renewDir(d FreshDir) error {
	type kept struct {
		path string
		fd   int
		dir  bool
	}
	var ks []kept
	defer func() {
		for _, k := range ks {
			unix.Close(k.fd)
		}
	}()
	// Cloned before the new tmpfs covers them.
	for _, p := range d.Keep {
		fd, err := unix.OpenTree(unix.AT_FDCWD, p, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
			return fmt.Errorf("keep %s in the run's %s: %w", p, d.Path, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return fmt.Errorf("keep %s in the run's %s: %w", p, d.Path, err)
		}
		ks = append(ks, kept{p, fd, st.Mode&unix.S_IFMT == unix.S_IFDIR})
	}
	if err := mountTmpfs(d.Path); err != nil {
		return fmt.Errorf("give the run an empty %s: %w", d.Path, err)
	}
	for _, k := range ks {
		if err := mountPoint(k.path, k.dir); err != nil {
			return fmt.Errorf("keep %s in the run's %s: %w", k.path, d.Path, err)
		}
		if err := unix.MoveMount(k.fd, "", unix.AT_FDCWD, k.path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("keep %s in the run's %s: %w", k.path, d.Path, err)
		}
	}
	return nil
}

// loopbackUp brings up lo in a new network namespace, as bwrap does:
// local servers a command starts must be reachable. One the zygote's
// pool made has it up already, and a run may not change it.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring up the run's loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bring up the run's loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up the run's loopback: %w", err)
	}
	if ifr.Uint16()&unix.IFF_UP != 0 {
		return nil
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up the run's loopback: %w", err)
	}
	return nil
}
