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
// not dumpable, and the agent holds no CAP_SYS_PTRACE (reach_linux.go),
// so nothing it starts can read this process's memory or take its
// listener. The guard's thread keeps the capabilities it has, as it
// must to read the memory of an agent that holds some. Killed, this
// process leaves every creating call failing (ENOSYS) rather than going
// through.

// superviseGuarded starts the guard for the uncreatable paths, installs
// its filter last on this thread (locked, the other filters on it, and
// dropReach done), and starts the agent under it (superviseAgent; as
// inContainer as there). holdsCaps is dropReach's answer.
func superviseGuarded(uncreatable []string, holdsCaps bool, path string, argv []string, inContainer bool) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("hide the run's first process: %w", err)
	}
	guard, err := notify.StartGuard(uncreatable, !holdsCaps)
	if err != nil {
		return fmt.Errorf("start the creation guard: %w", err)
	}
	l, err := notify.InstallGuardFilter()
	if err != nil {
		return err
	}
	guard.Serve(l)
	return superviseAgent(path, argv, inContainer)
}
