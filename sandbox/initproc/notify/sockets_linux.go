package notify

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A seccomp filter decides which sockets a run may create. Landlock (ABI
// 4 to 9) only governs TCP connect and bind, so without a network
// namespace of its own a run could still send UDP (DNS included), open
// raw or packet sockets as root, or use protocols Landlock does not see
// (SCTP, MPTCP); and io_uring creates sockets without the socket(2) call
// a filter can check. As in Codex's Linux sandbox, the filter refuses
// socket creation itself, so none of those exists.
//
// Nor, beside Landlock, do unix sockets made with socket(2): below ABI 9
// Landlock does not govern connecting to a pathname socket, and the host's
// are all in reach there: the daemon's own control.sock (which would let a
// command approve its own cards), the session bus (which starts programs
// outside any sandbox), a container engine's socket. socketpair(2), which
// reaches nothing outside the run, stays allowed.

// Sockets is what a filter lets a run create.
type Sockets int

const (
	// PairsOnly: no socket(2) at all, socketpair(2) of AF_UNIX only (no
	// network, host namespace).
	PairsOnly Sockets = iota
	// PairsAndTCP: PairsOnly, and AF_INET/AF_INET6 stream sockets of plain
	// TCP, which Landlock then confines to the proxy's port; and every
	// connect(2) goes to the supervising helper, which makes only those to
	// the proxy's address (connect_linux.go), since Landlock matches
	// ports, not addresses, or to the run's own listeners. bind(2) and
	// listen(2) go there too, which keeps each listener on the loopback
	// (listen_linux.go). A TCP Fast Open send, which connects without
	// connect(2), is refused.
	PairsAndTCP
	// Namespaced: the run's own network namespace confines IP, so only the
	// families a namespace does not confine are refused (vsock reaches the
	// hypervisor, bluetooth and the like reach hardware).
	Namespaced
)

// Socket constants the filter compares against (the same on Linux
// everywhere).
const (
	afUnix      = 1
	afInet      = 2
	afInet6     = 10
	afNetlink   = 16
	sockStream  = 1
	ipprotoTCP  = 6
	sockTypeMsk = 0xf

	// MSG_FASTOPEN, which connects a TCP socket without connect(2).
	msgFastOpen = 0x20000000
)

func filterFor(s Sockets) []unix.SockFilter { return assembled[s]() }

// assembled holds each program, assembled once: a run's first process
// assembles its own while it waits for the call.
var assembled = [...]func() []unix.SockFilter{
	PairsOnly:   assembleOnce(PairsOnly),
	PairsAndTCP: assembleOnce(PairsAndTCP),
	Namespaced:  assembleOnce(Namespaced),
}

// Warm assembles, ahead of the call, the programs a zygote's run may
// install: the socket filter of a run with its own network namespace
// and the creation guard's, for a run that writes the workspace itself.
func Warm() {
	filterFor(Namespaced)
	guardProgram()
}

func assembleOnce(s Sockets) func() []unix.SockFilter {
	return sync.OnceValue(func() []unix.SockFilter { return mustAssemble(socketFilter(hostArch(), s)) })
}

// socketFilter is the program for arch: a call from another architecture
// (i386 through int 0x80) kills the process, since its numbers mean
// something else; x32 calls, io_uring (with a host namespace) and the
// sockets s does not allow fail with EPERM; everything else runs.
func socketFilter(a *seccompArch, s Sockets) []insn {
	deny := ret(errno(unix.EPERM))
	p := archCheck(a)
	p = append(p,
		jeq(a.socket, "socket", ""),
		jeq(a.socketpair, "socketpair", ""),
	)
	if s == PairsAndTCP {
		p = append(p,
			jeq(a.connect, "supervise", ""),
			jeq(a.bind, "supervise", ""),
			jeq(a.listen, "supervise", ""),
			jeq(a.sendto, "sendto", ""),
			jeq(a.sendmsg, "sendmsg", ""),
			jeq(a.sendmmsg, "sendto", ""), // flags are its fourth argument too
		)
	}
	if s != Namespaced {
		p = append(p,
			jeq(sysIOUringSetup, "deny", ""),
			jeq(sysIOUringEnter, "deny", ""),
			jeq(sysIOUringRegister, "deny", ""),
		)
	}
	p = append(p, ja("allow"))

	p = append(p, at("socket", ld(offArg0)))
	if s == Namespaced {
		// The run's mount namespace shows it no host socket to reach.
		p = append(p, jeq(afUnix, "allow", ""))
	}
	switch s {
	case PairsAndTCP:
		p = append(p,
			jeq(afInet, "stream", ""),
			jeq(afInet6, "stream", "deny"),
			// SOCK_NONBLOCK and SOCK_CLOEXEC ride in the type argument.
			at("stream", ld(offArg1)), and(sockTypeMsk),
			jeq(sockStream, "", "deny"),
			// 0 means TCP for a stream socket; SCTP and MPTCP are not
			// TCP to Landlock.
			ld(offArg2),
			jeq(0, "allow", ""),
			jeq(ipprotoTCP, "allow", "deny"),
		)
	case Namespaced:
		p = append(p,
			jeq(afInet, "allow", ""),
			jeq(afInet6, "allow", ""),
			jeq(afNetlink, "allow", "deny"),
		)
	default:
		p = append(p, ja("deny"))
	}
	p = append(p,
		at("socketpair", ld(offArg0)),
		jeq(afUnix, "allow", "deny"),
	)
	if s == PairsAndTCP {
		p = append(p,
			at("sendto", ld(offArg3)), and(msgFastOpen),
			jeq(0, "allow", "deny"),
			at("sendmsg", ld(offArg2)), and(msgFastOpen),
			jeq(0, "allow", "deny"),
			at("supervise", ret(unix.SECCOMP_RET_USER_NOTIF)),
		)
	}
	p = append(p,
		at("allow", ret(unix.SECCOMP_RET_ALLOW)),
		at("deny", deny),
		at("kill", ret(unix.SECCOMP_RET_KILL_PROCESS)),
	)
	return p
}

// ApplySockets installs the filter for s on the calling thread, the one
// that execs (held with LockOSThread): the target inherits that thread's
// filter across exec, and the helper's other threads exist no longer than
// the exec. no_new_privs comes first: the kernel requires it of an
// unprivileged filter, and it keeps a setuid program from shedding it.
func ApplySockets(s Sockets) error {
	l, err := installSeccomp(s)
	if l >= 0 {
		unix.Close(l) // nobody to decide: the calls it would send fail
	}
	return err
}

// installSeccomp is ApplySockets, returning the filter's notification
// listener when s sends calls to a supervisor (PairsAndTCP), -1 else.
func installSeccomp(s Sockets) (listener int, err error) {
	if hostArch() == nil {
		return -1, fmt.Errorf("no network filter for the %s architecture; use a supported machine (amd64, arm64) or the host network", runtime.GOARCH)
	}
	prog := filterFor(s)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("set no_new_privs: %w", err)
	}
	var flags uintptr
	if s == PairsAndTCP {
		flags = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fp)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return -1, fmt.Errorf("install the network filter: %w", e)
	}
	if flags == 0 {
		return -1, nil
	}
	return int(r), nil
}
