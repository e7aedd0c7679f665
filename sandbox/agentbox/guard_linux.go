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
// not dumpable, and the agent cannot hold CAP_SYS_PTRACE (bubblewrap
// started by root leaves it every other capability in the sandbox's
// user namespace; the guard's thread holds what it holds, as it must to
// read its memory), so nothing the agent starts can read this process's
// memory or take its listener. Killed, it leaves every creating call
// failing (ENOSYS) rather than going through.

// superviseGuarded starts the guard for the uncreatable paths, installs
// its filter last on this thread (locked, the other filters on it), and
// starts the agent under it (superviseAgent; as PID 1 of a container
// when pid1).
func superviseGuarded(uncreatable []string, path string, argv []string, pid1 bool) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("hide the run's first process: %w", err)
	}
	holds, err := dropPtrace()
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

// dropPtrace takes CAP_SYS_PTRACE from this thread and from what it
// starts, and reports whether the thread holds other capabilities (one
// that holds none may not change its bounding set, and has nothing to
// take). The others stay: an agent's own sandbox (Codex's bubblewrap)
// needs them where the run has them.
func dropPtrace() (holds bool, err error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false, fmt.Errorf("read the run's capabilities: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 {
		return false, nil
	}
	if err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_PTRACE, 0, 0, 0); err != nil {
		return true, fmt.Errorf("drop CAP_SYS_PTRACE from the run's bounding set: %w", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return true, fmt.Errorf("clear the run's ambient capabilities: %w", err)
	}
	const bit = 1 << unix.CAP_SYS_PTRACE // in the first word
	data[0].Effective &^= bit
	data[0].Permitted &^= bit
	data[0].Inheritable &^= bit
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return true, fmt.Errorf("drop CAP_SYS_PTRACE: %w", err)
	}
	return true, nil
}
