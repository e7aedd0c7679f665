package agentbox

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/notify"
)

// A run writes its workspace itself, so a protected name that does not
// exist there (.envrc, .mcp.json, .claude) has no read-only mount to
// keep it from being made, and one made would steer the next session
// outside any sandbox. As in a command's unstaged run, every call that
// can add a name stops at the creation guard's filter, and this process
// makes the entry itself unless it is one of those (notify.Guard); its
// directories are pinned (Spec.Pin), so none can be moved away and made
// anew. Entries elsewhere (the run's home, /tmp, the agent's state) are
// made as asked, one notification each.
//
// This process stays as the agent's parent to do so, out of its reach:
// not dumpable, and the agent cannot hold CAP_SYS_PTRACE, so nothing it
// starts can read this process's memory or take its listener; nor
// CAP_SYS_ADMIN, so it cannot unmount what keeps a directory in place
// (Spec.Pin) or a protected path read-only. Bubblewrap started by root
// leaves the agent every capability in the sandbox's user namespace;
// the others stay (an agent's own sandbox, Codex's bubblewrap, needs
// them), and the guard's thread keeps its own, as it must to read the
// memory of an agent that holds some. Killed, this process leaves every creating call
// failing (ENOSYS) rather than going through.

// superviseGuarded starts the guard for the uncreatable paths, installs
// its filter last on this thread (locked, the other filters on it), and
// starts the agent under it (superviseAgent; as PID 1 of a container
// when pid1).
func superviseGuarded(uncreatable []string, path string, argv []string, pid1 bool) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("hide the run's first process: %w", err)
	}
	holds, err := dropReach()
	if err != nil {
		return err
	}
	guard, err := notify.StartGuard(uncreatable, !holds)
	if err != nil {
		return fmt.Errorf("start the creation guard: %w", err)
	}
	l, err := notify.InstallGuardFilter()
	if err != nil {
		return err
	}
	guard.Serve(l)
	return superviseAgent(path, argv, pid1)
}

// dropReach takes CAP_SYS_PTRACE and CAP_SYS_ADMIN from this thread
// and from what it starts, and reports whether the thread holds other
// capabilities (one that holds none may not change its bounding set,
// and has nothing to take).
func dropReach() (holds bool, err error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false, fmt.Errorf("read the run's capabilities: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 {
		return false, nil
	}
	for _, c := range []uintptr{unix.CAP_SYS_PTRACE, unix.CAP_SYS_ADMIN} {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
			return true, fmt.Errorf("drop capability %d from the run's bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return true, fmt.Errorf("clear the run's ambient capabilities: %w", err)
	}
	const bit = 1<<unix.CAP_SYS_PTRACE | 1<<unix.CAP_SYS_ADMIN // in the first word
	data[0].Effective &^= bit
	data[0].Permitted &^= bit
	data[0].Inheritable &^= bit
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return true, fmt.Errorf("drop CAP_SYS_PTRACE: %w", err)
	}
	return true, nil
}
