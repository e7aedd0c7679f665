package initproc

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/caps"
	"golang.org/x/sys/unix"
)

// zygote makes the session's layout, readies it for runs, then starts a
// sandbox for each request on its control socket until the daemon closes
// it. When it exits, bwrap's init does too, and the kernel ends every run
// of the session with their PID namespace.
func zygote(cfg Config) int {
	z := *cfg.Zygote
	if err := makeLayout(cfg.Layout); err != nil {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
		return ExitSetupFailed
	}
	fresh, err := readyForRuns(z.Fresh)
	if err == nil {
		// Not made undumpable: no run sees the zygote (each has a PID
		// namespace of its own), and an undumpable zygote's children's
		// /proc files belong to root, whom an unprivileged user's
		// namespace does not map: their uid_map could not be written.
		err = os.Chdir("/")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
		return ExitSetupFailed
	}
	nets := newNetPool()
	go reapChildren(nets.reaped)
	spawn := func(msg []byte, fds []int) (int, error) { return spawnFrom(msg, fds, fresh, nets) }
	if err := serveSpawns(z.ControlFD, spawn); err != nil {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
		return ExitSetupFailed
	}
	return 0
}

// readyForRuns makes the zygote's mounts a template each run can copy
// into a user namespace of its own: every mount private (nothing a run
// mounts comes back, nothing mounted here later reaches a run), and no
// mount below /proc, so that a run, which cannot unmount what it copied,
// may still mount a procfs of its own (the kernel lets a user namespace
// mount one only where a procfs is fully in sight). It returns what each
// fresh directory keeps.
func readyForRuns(freshDirs []string) ([]FreshDir, error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("make the sandbox's mounts private: %w", err)
	}
	ms, err := readMountInfo()
	if err != nil {
		return nil, err
	}
	// bwrap covers /proc/sys and the like read-only; each run covers its
	// own procfs the same way (callns_linux.go). Deepest first.
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Point != "/proc" && within(ms[i].Point, "/proc") {
			if err := unix.Unmount(ms[i].Point, unix.MNT_DETACH); err != nil {
				return nil, fmt.Errorf("clear %s for the runs' own /proc: %w", ms[i].Point, err)
			}
		}
	}
	var out []FreshDir
	for _, d := range freshDirs {
		out = append(out, FreshDir{Path: d, Keep: childMounts(ms, d)})
	}
	return out, nil
}

// reapChildren reaps the runs' first processes as they exit, and tells
// gone of each; the runs' results go to the daemon on their own status
// pipes.
func reapChildren(gone func(pid int)) {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGCHLD)
	for range sigs {
		for {
			pid, _, err := reapOne(syscall.WNOHANG)
			if pid <= 0 || err != nil {
				break
			}
			gone(pid)
		}
	}
}

// serveSpawns answers spawn requests until the daemon closes the socket:
// spawn starts one from its message and descriptors (which it must not
// close) and returns the pidfd of its first process.
func serveSpawns(ctl int, spawn func(msg []byte, fds []int) (int, error)) error {
	buf := make([]byte, MaxSpawnMessage+1)
	oob := make([]byte, unix.CmsgSpace((SpawnFDs+1)*4))
	for {
		n, oobn, flags, _, err := unix.Recvmsg(ctl, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read the daemon's requests: %w", err)
		}
		if n == 0 && oobn == 0 {
			return nil // the daemon closed the session's zygote
		}
		fds, perr := fdpass.ParseRights(oob[:oobn])
		pidfd, serr := spawnChecked(spawn, buf[:n], fds, flags, perr)
		for _, fd := range fds {
			_ = unix.Close(fd)
		}
		err = reply(ctl, pidfd, serr)
		if pidfd >= 0 {
			_ = unix.Close(pidfd)
		}
		if err != nil {
			return fmt.Errorf("answer the daemon: %w", err)
		}
	}
}

// spawnChecked refuses a request the socket cut short, and hands any
// other to spawn.
func spawnChecked(spawn func(msg []byte, fds []int) (int, error), msg []byte, fds []int, flags int, rightsErr error) (int, error) {
	if flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 || rightsErr != nil {
		return -1, errors.New("spawn request cut short")
	}
	return spawn(msg, fds)
}

// spawnFrom checks one request and starts its run's first process.
func spawnFrom(msg []byte, fds []int, fresh []FreshDir, nets *netPool) (int, error) {
	req, err := DecodeSpawn(msg)
	if err != nil {
		return -1, err
	}
	if err := spawnFDs(fds, req.Cgroup); err != nil {
		return -1, err
	}
	return spawnRun(req, fds, fresh, nets)
}

// spawnFDs checks a request came with its descriptors: SpawnFDs, and
// the run's cgroup.procs when it says so.
func spawnFDs(fds []int, cgroup bool) error {
	want := SpawnFDs
	if cgroup {
		want++
	}
	if len(fds) != want {
		return fmt.Errorf("spawn request with %d descriptors, want %d", len(fds), want)
	}
	return nil
}

// spawnRun starts a run's first process (callInit) in namespaces of its
// own: a user namespace mapping this user onto itself, where it holds
// the capabilities to make the run's mounts (over copies of the
// zygote's, which it cannot unmount), a mount, PID, IPC and UTS
// namespace, and a network namespace from nets unless the run shares the
// host's. It returns the process's pidfd.
func spawnRun(req SpawnRequest, fds []int, fresh []FreshDir, nets *netPool) (int, error) {
	ci := CallInit{RequestFD: 3, StatusFD: 4, Setup: CallSetup{OwnNet: req.OwnNet, Fresh: fresh}}
	files := make([]uintptr, len(fds))
	for i, fd := range fds {
		files[i] = uintptr(fd)
	}
	if req.Cgroup {
		ci.Setup.CgroupFD = SpawnFDs
	}
	enc, err := encodeSmall(ci)
	if err != nil {
		return -1, err
	}
	// The network namespace, when the run has one of its own, comes from
	// the pool: the thread that forks is in it.
	flags := uintptr(unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS)
	uid, gid := os.Getuid(), os.Getgid()
	pidfd := -1
	_, err = forkInNet(nets, req.OwnNet, "/proc/self/exe", []string{os.Args[0], Entry, CallInitArg, string(enc)}, &syscall.ProcAttr{
		// One processor will do, and the runtime need not read the
		// cgroup's CPU limit to learn it.
		Env:   []string{"GOMAXPROCS=1"},
		Dir:   "/",
		Files: files,
		Sys: &syscall.SysProcAttr{
			Cloneflags:  flags,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
			// Kept across exec even for a user that is not root in the new
			// namespace (as bwrap's --cap-add does): the run's first process
			// needs them for its mounts, and drops them all before the
			// target starts.
			AmbientCaps: caps.All(),
			PidFD:       &pidfd,
			Setsid:      true,
		},
	})
	if err != nil {
		return -1, fmt.Errorf("start the run's first process: %w", err)
	}
	return pidfd, nil
}

// reply answers a spawn request with the pidfd, or the error.
func reply(ctl, pidfd int, spawnErr error) error {
	var r SpawnReply
	var oob []byte
	if spawnErr != nil {
		r.Error = spawnErr.Error()
		if len(r.Error) > MaxSpawnMessage/2 {
			r.Error = r.Error[:MaxSpawnMessage/2]
		}
	} else {
		oob = unix.UnixRights(pidfd)
	}
	b, err := EncodeReply(r)
	if err != nil {
		return err
	}
	return unix.Sendmsg(ctl, b, oob, nil, 0)
}
