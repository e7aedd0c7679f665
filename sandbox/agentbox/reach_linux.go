package agentbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Bubblewrap started by root leaves the agent every capability in the
// sandbox's user namespace. Two of them reach past the run's walls:
// CAP_SYS_ADMIN unmounts what keeps a protected path read-only or a
// directory in place, and CAP_SYS_PTRACE reads the memory of the run's
// first process, which serves the creation guard (guard_linux.go). The
// others stay: an agent's own sandbox (Codex's bubblewrap) needs them.

// dropReach takes CAP_SYS_PTRACE and CAP_SYS_ADMIN from this thread and
// from what it starts, and reports whether the thread holds other
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
		return true, fmt.Errorf("drop the run's CAP_SYS_PTRACE and CAP_SYS_ADMIN: %w", err)
	}
	return true, nil
}
