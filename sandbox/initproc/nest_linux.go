package initproc

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// A container's runs share its namespaces: each is an exec into the same
// mount namespace, where no process may mount. So the supervisor of a call
// over a connection starts the target's helper in a user and mount
// namespace of its own, where the helper holds the capabilities to make
// the call's mounts (a staged run's overlays and the covers on top of
// them, a read-only workspace), and drops every one of them before exec.
//
// Mapping uid 0 into a new user namespace needs CAP_SETFCAP (Linux
// 5.12), so a container that runs as root keeps that one capability for
// this; the helper drops it with the rest, and nothing the target starts
// can map root again.

// needsNamespace reports whether r asks for mounts.
func needsNamespace(r Request) bool {
	return len(r.Stage) > 0 || len(r.ReadOnly) > 0 || len(r.Protect) > 0 || len(r.Writable) > 0 ||
		len(r.Pin) > 0 || len(r.HideFiles) > 0 || len(r.HideDirs) > 0 || len(r.PassThrough) > 0
}

// callMounts is the part of r the nested helper makes.
func callMounts(r Request) Request {
	return Request{
		Dir: r.Dir, ReadOnly: r.ReadOnly, Protect: r.Protect, Writable: r.Writable, Pin: r.Pin,
		HideFiles: r.HideFiles, HideDirs: r.HideDirs, Stage: r.Stage, PassThrough: r.PassThrough, StageNonce: r.StageNonce,
	}
}

// nestedAttr starts a process in a new user and mount namespace, with this
// process's user and group mapped onto themselves.
func nestedAttr() *syscall.SysProcAttr {
	uid, gid := os.Geteuid(), os.Getegid()
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
	}
}

// nestMounts makes m's mounts in the helper's own mount namespace.
func nestMounts(m Request) error {
	// Nothing made here reaches the container's namespace (a namespace of
	// a less privileged user namespace gets slave copies already).
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("make the run's mounts its own: %w", err)
	}
	return mountRequest(m)
}

// hideFromRuns closes this process's /proc entries (its root, working
// directory and descriptors) to the runs: they share the container's PID
// namespace, and through them a run would reach the container's own view
// of the workspace, outside its overlay. Only a process holding
// CAP_SYS_PTRACE over the container may look into a process that is not
// dumpable, and no run holds a capability there.
func hideFromRuns() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("hide the helper from the runs: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return fmt.Errorf("leave the workspace: %w", err)
	}
	return nil
}

// idle is a container's first process: the kernel reaps the orphans a
// killed run leaves (SIGCHLD ignored), and SIGTERM ends it.
func idle() int {
	if err := hideFromRuns(); err != nil {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
		return ExitSetupFailed
	}
	signal.Ignore(syscall.SIGCHLD)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	<-sigs
	return 0
}
