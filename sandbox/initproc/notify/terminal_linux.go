package notify

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A whole agent shares the person's terminal (its raw mode, its window
// size, Ctrl-C), so it runs in the terminal's own session. Two ioctls on
// a terminal reach past the sandbox: TIOCSTI pushes bytes into the
// terminal's input, which the person's shell reads as typed once the
// agent exits (a kernel with dev.tty.legacy_tiocsti=1 allows it), and
// TIOCLINUX can do the same on a virtual console by pasting its
// selection. The terminal filter refuses both; every other ioctl runs.

const (
	tiocsti   = 0x5412
	tioclinux = 0x541c
)

var terminalProgram = sync.OnceValue(func() []unix.SockFilter { return mustAssemble(terminalFilter(hostArch())) })

func terminalFilter(a *seccompArch) []insn {
	p := archCheck(a)
	p = append(p,
		jeq(a.ioctl, "", "allow"),
		// The request is an int: the low word of the second argument.
		ld(offArg1),
		jeq(tiocsti, "deny", ""),
		jeq(tioclinux, "deny", "allow"),
		at("allow", ret(unix.SECCOMP_RET_ALLOW)),
		at("deny", ret(errno(unix.EPERM))),
		at("kill", ret(unix.SECCOMP_RET_KILL_PROCESS)),
	)
	return p
}

// ApplyTerminal installs the terminal filter on the calling thread, the
// one that execs (held with LockOSThread), after no_new_privs.
func ApplyTerminal() error {
	if hostArch() == nil {
		return fmt.Errorf("no terminal filter for the %s architecture; use a supported machine (amd64, arm64)", runtime.GOARCH)
	}
	prog := terminalProgram()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fp)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("install the terminal filter: %w", e)
	}
	return nil
}
