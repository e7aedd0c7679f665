package notify

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A run that writes the workspace itself (bwrap, unstaged) must not
// create a protected name that does not exist yet (.envrc, .git/hooks),
// and should not see a placeholder where it is: a mount needs an entry
// to sit on, and no mount hides a name from its directory's listing. So
// every call that can create a directory entry stops at a seccomp
// notification, and the run's first process makes the entry itself
// (guardserve_linux.go) unless it is a protected one. Deciding and then
// letting the call go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE) would be
// racy: the kernel reads the path again after the check.
//
// The calls are every one that adds a name: open with O_CREAT, creat,
// mkdir, mknod, symlink, link, rename and bind (a unix socket's path).
// openat2 fails with ENOSYS, as on a kernel without it, since its flags
// sit in memory a filter cannot read; callers fall back to openat.
// io_uring fails with EPERM: its operations bypass seccomp.

// guardCall is one kind of creating call, as the guard decodes it.
type guardCall int

const (
	gcOpen guardCall = iota
	gcCreat
	gcOpenat
	gcMkdir
	gcMkdirat
	gcMknod
	gcMknodat
	gcSymlink
	gcSymlinkat
	gcLink
	gcLinkat
	gcRename
	gcRenameat
	gcRenameat2
	gcBind
)

// guardCalls maps each architecture's syscall numbers to the calls the
// guard decides; arm64 has only the *at forms.
var guardCalls = map[string]map[uint32]guardCall{
	"amd64": {
		2: gcOpen, 85: gcCreat, 257: gcOpenat,
		83: gcMkdir, 258: gcMkdirat, 133: gcMknod, 259: gcMknodat,
		88: gcSymlink, 266: gcSymlinkat, 86: gcLink, 265: gcLinkat,
		82: gcRename, 264: gcRenameat, 316: gcRenameat2, 49: gcBind,
	},
	"arm64": {
		56: gcOpenat, 34: gcMkdirat, 33: gcMknodat, 36: gcSymlinkat,
		37: gcLinkat, 38: gcRenameat, 276: gcRenameat2, 200: gcBind,
	},
}

const sysOpenat2 = 437 // the same on every architecture

// filterFlagWaitKillableRecv is SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
// (Linux 5.19), which x/sys/unix does not name.
const filterFlagWaitKillableRecv = 1 << 5

// guardFilter is the program for arch a and its call table: other
// architectures' calls kill the process, x32 calls and io_uring fail
// with EPERM, openat2 with ENOSYS, creating calls go to the guard, and
// everything else runs.
func guardFilter(a *seccompArch, calls map[uint32]guardCall) []insn {
	p := archCheck(a)
	nrs := make([]uint32, 0, len(calls))
	for nr := range calls {
		nrs = append(nrs, nr)
	}
	slices.Sort(nrs)
	for _, nr := range nrs {
		switch calls[nr] {
		case gcOpen:
			p = append(p, jeq(nr, "open", ""))
		case gcOpenat:
			p = append(p, jeq(nr, "openat", ""))
		default:
			p = append(p, jeq(nr, "notify", ""))
		}
	}
	p = append(p,
		jeq(sysOpenat2, "enosys", ""),
		jeq(sysIOUringSetup, "deny", ""),
		jeq(sysIOUringEnter, "deny", ""),
		jeq(sysIOUringRegister, "deny", ""),
		ja("allow"),
	)
	if hasCall(calls, gcOpen) {
		// open(path, flags, mode): only O_CREAT adds a name (O_TMPFILE
		// makes a file without one, which link would have to add).
		p = append(p, at("open", ld(offArg1)), and(unix.O_CREAT), jeq(0, "allow", "notify"))
	}
	p = append(p,
		at("openat", ld(offArg2)), and(unix.O_CREAT), jeq(0, "allow", "notify"),
		at("notify", ret(unix.SECCOMP_RET_USER_NOTIF)),
		at("enosys", ret(errno(unix.ENOSYS))),
		at("allow", ret(unix.SECCOMP_RET_ALLOW)),
		at("deny", ret(errno(unix.EPERM))),
		at("kill", ret(unix.SECCOMP_RET_KILL_PROCESS)),
	)
	return p
}

func hasCall(calls map[uint32]guardCall, c guardCall) bool {
	for _, v := range calls {
		if v == c {
			return true
		}
	}
	return false
}

// guardProgram is the assembled program for this machine, nil where
// there is none.
var guardProgram = sync.OnceValue(func() []unix.SockFilter {
	a, calls := hostArch(), guardCalls[runtime.GOARCH]
	if a == nil || calls == nil {
		return nil
	}
	return mustAssemble(guardFilter(a, calls))
})

// InstallGuardFilter installs the guard's filter on the calling thread,
// which starts the target next, and returns its notification listener.
// It sets no_new_privs, which an unprivileged filter needs (a run's
// first process has set it already). A notification once received
// is not cut short by a signal to its caller (WAIT_KILLABLE_RECV): a Go
// target's preemption signals would otherwise make the kernel restart a
// call the guard has already carried out, and an O_EXCL open fail.
func InstallGuardFilter() (int, error) {
	prog := guardProgram()
	if prog == nil {
		return -1, fmt.Errorf("no creation guard for the %s architecture; use a supported machine (amd64, arm64), or stage commands (the default)", runtime.GOARCH)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("set no_new_privs: %w", err)
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	install := func(flags uintptr) (uintptr, unix.Errno) {
		r, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fp)))
		return r, e
	}
	r, e := install(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | filterFlagWaitKillableRecv)
	if e == unix.EINVAL {
		// Before Linux 5.19: a signal can then cut a call short after
		// the guard made its entry, which the call's retry finds there.
		r, e = install(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER)
	}
	runtime.KeepAlive(prog)
	if e != 0 {
		return -1, fmt.Errorf("install the creation guard's filter: %w", e)
	}
	return int(r), nil
}
