// Package caps gives up a thread's capabilities. They belong to a
// thread, not a process: each function acts on the calling thread, which
// the caller keeps locked (runtime.LockOSThread) until it execs or forks
// the target.
package caps

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// LastCap is the highest capability this kernel knows, read once: a
// run's first process reads it while it waits for the call.
var LastCap = sync.OnceValue(func() int {
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 && n < 64 {
			return n
		}
	}
	return 63
})

// All lists every capability this kernel knows: a process started into
// a user namespace of its own with them all ambient keeps them across
// exec there, as bwrap's --cap-add ALL gives them, even for a user that
// is not root in it.
var All = sync.OnceValue(func() []uintptr {
	all := make([]uintptr, LastCap()+1)
	for i := range all {
		all[i] = uintptr(i)
	}
	return all
})

// DropAll leaves the calling thread, and what it execs, with no
// capabilities: not even uid 0 inside the sandbox's user namespace gets
// them back on exec, because the bounding set is empty too.
func DropAll() error {
	if err := DropBounding(); err != nil {
		return err
	}
	return Clear()
}

// DropBounding empties the calling thread's bounding set, which only
// limits what exec and capset may grant later: the thread keeps the
// capabilities it holds, so a run's first process does this while it
// waits, and Clear when the call comes.
func DropBounding() error {
	for c := 0; c <= LastCap(); c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	return nil
}

// Clear drops the calling thread's ambient, permitted, effective and
// inheritable capabilities and sets no_new_privs.
func Clear() error {
	if err := DropThread(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	return nil
}

// DropThread empties the calling thread's ambient, permitted,
// effective and inheritable capabilities; the other threads keep theirs.
func DropThread() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}
