package agentbox

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/caps"
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
// not dumpable, and the agent holds no capability (bubblewrap started
// by root would leave it every one in the sandbox's user namespace,
// CAP_SYS_PTRACE over this process among them), so nothing the agent
// starts can read this process's memory or take its listener. Killed,
// it leaves every creating call failing (ENOSYS) rather than going
// through.

// superviseGuarded starts the guard for the uncreatable paths, installs
// its filter last on this thread (locked, the other filters on it), and
// starts the agent under it (superviseAgent; as PID 1 of a container
// when pid1).
func superviseGuarded(uncreatable []string, path string, argv []string, pid1 bool) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("hide the run's first process: %w", err)
	}
	if err := dropHeldCaps(); err != nil {
		return err
	}
	guard, err := notify.StartGuard(uncreatable, true)
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

// dropHeldCaps leaves this thread, and the agent it starts, no
// capability, if it holds any (one that holds none may not empty its
// bounding set, and has nothing to give the agent).
func dropHeldCaps() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read the run's capabilities: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 {
		return nil
	}
	return caps.DropAll()
}
