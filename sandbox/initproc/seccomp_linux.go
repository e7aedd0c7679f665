package initproc

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

// sockets is what a filter lets a run create.
type sockets int

const (
	// pairsOnly: no socket(2) at all, socketpair(2) of AF_UNIX only (no
	// network, host namespace).
	pairsOnly sockets = iota
	// pairsAndTCP: pairsOnly, and AF_INET/AF_INET6 stream sockets of plain
	// TCP, which Landlock then confines to the proxy's port; and every
	// connect(2) goes to the supervising helper, which makes only those to
	// the proxy's address (connect_notify_linux.go), since Landlock matches
	// ports, not addresses. A TCP Fast Open send, which connects without
	// connect(2), is refused.
	pairsAndTCP
	// namespaced: the run's own network namespace confines IP, so only the
	// families a namespace does not confine are refused (vsock reaches the
	// hypervisor, bluetooth and the like reach hardware).
	namespaced
)

// seccompArch is what a filter needs to know of one architecture.
type seccompArch struct {
	audit uint32 // AUDIT_ARCH_* as seccomp_data.arch reports it
	// x32 marks x86_64, whose x32 ABI shares the arch value and sets a bit
	// in the syscall number instead: such calls are refused outright.
	x32                      bool
	socket, socketpair       uint32
	connect, sendto, sendmsg uint32
	sendmmsg                 uint32
}

var seccompArches = map[string]seccompArch{
	"amd64": {audit: 0xc000003e, x32: true, socket: 41, socketpair: 53, connect: 42, sendto: 44, sendmsg: 46, sendmmsg: 307},
	"arm64": {audit: 0xc00000b7, socket: 198, socketpair: 199, connect: 203, sendto: 206, sendmsg: 211, sendmmsg: 269},
}

// The io_uring calls have the same numbers on every architecture.
const (
	sysIOUringSetup    = 425
	sysIOUringEnter    = 426
	sysIOUringRegister = 427
	x32Bit             = 0x40000000
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
)

// seccomp_data offsets: nr, arch, then six 64-bit arguments; the low word
// of each argument comes first on little-endian machines, and socket(2)
// takes ints, so the low word is what the kernel uses.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
	offArg2 = 32
	offArg3 = 40

	msgFastOpen = 0x20000000
)

// insn is one BPF instruction whose jumps name labels, resolved by
// assemble so the program reads top to bottom.
type insn struct {
	label  string
	code   uint16
	k      uint32
	jt, jf string // "" falls through
	ja     string // target of an unconditional jump
}

func ld(off uint32) insn { return insn{code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, k: off} }
func jeq(k uint32, jt, jf string) insn {
	return insn{code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, k: k, jt: jt, jf: jf}
}
func jge(k uint32, jt, jf string) insn {
	return insn{code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, k: k, jt: jt, jf: jf}
}
func and(k uint32) insn                     { return insn{code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, k: k} }
func ja(to string) insn                     { return insn{code: unix.BPF_JMP | unix.BPF_JA, ja: to} }
func ret(k uint32) insn                     { return insn{code: unix.BPF_RET | unix.BPF_K, k: k} }
func at(label string, i insn) insn          { i.label = label; return i }
func errno(e unix.Errno) uint32             { return unix.SECCOMP_RET_ERRNO | uint32(e)&unix.SECCOMP_RET_DATA }
func filterFor(s sockets) []unix.SockFilter { return assembled[s]() }

// assembled holds each program, assembled once: a run's first process
// assembles its own while it waits for the call.
var assembled = [...]func() []unix.SockFilter{
	pairsOnly:   assembleOnce(pairsOnly),
	pairsAndTCP: assembleOnce(pairsAndTCP),
	namespaced:  assembleOnce(namespaced),
}

func assembleOnce(s sockets) func() []unix.SockFilter {
	return sync.OnceValue(func() []unix.SockFilter { return mustAssemble(socketFilter(hostArch(), s)) })
}

// hostArch is the running architecture's table; an architecture without
// one gets no filter, and the run fails closed (see applySeccomp).
func hostArch() *seccompArch {
	a, ok := seccompArches[runtime.GOARCH]
	if !ok {
		return nil
	}
	return &a
}

// socketFilter is the program for arch: a call from another architecture
// (i386 through int 0x80) kills the process, since its numbers mean
// something else; x32 calls, io_uring (with a host namespace) and the
// sockets s does not allow fail with EPERM; everything else runs.
func socketFilter(a *seccompArch, s sockets) []insn {
	deny := ret(errno(unix.EPERM))
	p := archCheck(a)
	p = append(p,
		jeq(a.socket, "socket", ""),
		jeq(a.socketpair, "socketpair", ""),
	)
	if s == pairsAndTCP {
		p = append(p,
			jeq(a.connect, "connect", ""),
			jeq(a.sendto, "sendto", ""),
			jeq(a.sendmsg, "sendmsg", ""),
			jeq(a.sendmmsg, "sendto", ""), // flags are its fourth argument too
		)
	}
	if s != namespaced {
		p = append(p,
			jeq(sysIOUringSetup, "deny", ""),
			jeq(sysIOUringEnter, "deny", ""),
			jeq(sysIOUringRegister, "deny", ""),
		)
	}
	p = append(p, ja("allow"))

	p = append(p, at("socket", ld(offArg0)))
	if s == namespaced {
		// The run's mount namespace shows it no host socket to reach.
		p = append(p, jeq(afUnix, "allow", ""))
	}
	switch s {
	case pairsAndTCP:
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
	case namespaced:
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
	if s == pairsAndTCP {
		p = append(p,
			at("sendto", ld(offArg3)), and(msgFastOpen),
			jeq(0, "allow", "deny"),
			at("sendmsg", ld(offArg2)), and(msgFastOpen),
			jeq(0, "allow", "deny"),
			at("connect", ret(unix.SECCOMP_RET_USER_NOTIF)),
		)
	}
	p = append(p,
		at("allow", ret(unix.SECCOMP_RET_ALLOW)),
		at("deny", deny),
		at("kill", ret(unix.SECCOMP_RET_KILL_PROCESS)),
	)
	return p
}

// archCheck begins a program for arch a: a call from another
// architecture (i386 through int 0x80) jumps to "kill", since its numbers
// mean something else, and an x32 call to "deny"; the accumulator holds
// the call's number after.
func archCheck(a *seccompArch) []insn {
	p := []insn{
		ld(offArch),
		jeq(a.audit, "", "kill"),
		ld(offNr),
	}
	if a.x32 {
		p = append(p, jge(x32Bit, "deny", ""))
	}
	return p
}

// assemble resolves labels into BPF's offsets, which only jump forward.
func assemble(p []insn) ([]unix.SockFilter, error) {
	pos := map[string]int{}
	for i, in := range p {
		if in.label != "" {
			if _, dup := pos[in.label]; dup {
				return nil, fmt.Errorf("label %s defined twice", in.label)
			}
			pos[in.label] = i
		}
	}
	off := func(i int, label string) (int, error) {
		if label == "" {
			return 0, nil
		}
		t, ok := pos[label]
		if !ok || t <= i {
			return 0, fmt.Errorf("jump from %d to %q is not forward", i, label)
		}
		return t - i - 1, nil
	}
	out := make([]unix.SockFilter, len(p))
	for i, in := range p {
		f := unix.SockFilter{Code: in.code, K: in.k}
		if in.ja != "" {
			o, err := off(i, in.ja)
			if err != nil {
				return nil, err
			}
			f.K = uint32(o)
		} else if in.jt != "" || in.jf != "" {
			t, err := off(i, in.jt)
			if err != nil {
				return nil, err
			}
			e, err := off(i, in.jf)
			if err != nil {
				return nil, err
			}
			if t > 255 || e > 255 {
				return nil, fmt.Errorf("jump from %d too far", i)
			}
			f.Jt, f.Jf = uint8(t), uint8(e)
		}
		out[i] = f
	}
	return out, nil
}

func mustAssemble(p []insn) []unix.SockFilter {
	f, err := assemble(p)
	if err != nil {
		panic("seccomp filter: " + err.Error())
	}
	return f
}

// applySeccomp installs the filter for s on the calling thread, the one
// that execs (held with LockOSThread): the target inherits that thread's
// filter across exec, and the helper's other threads exist no longer than
// the exec. no_new_privs comes first: the kernel requires it of an
// unprivileged filter, and it keeps a setuid program from shedding it.
func applySeccomp(s sockets) error {
	l, err := installSeccomp(s)
	if l >= 0 {
		unix.Close(l) // nobody to decide: the calls it would send fail
	}
	return err
}

// installSeccomp is applySeccomp, returning the filter's notification
// listener when s sends calls to a supervisor (pairsAndTCP), -1 else.
func installSeccomp(s sockets) (listener int, err error) {
	if hostArch() == nil {
		return -1, fmt.Errorf("no network filter for the %s architecture; use a supported machine (amd64, arm64) or the host network", runtime.GOARCH)
	}
	prog := filterFor(s)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("set no_new_privs: %w", err)
	}
	var flags uintptr
	if s == pairsAndTCP {
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
