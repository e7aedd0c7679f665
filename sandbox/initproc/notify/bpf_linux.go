package notify

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// The classic BPF both filters are written in (sockets_linux.go,
// guardfilter_linux.go): each architecture's numbers, the seccomp_data
// layout, and an assembler whose jumps name labels.

// seccompArch is what a filter needs to know of one architecture.
type seccompArch struct {
	audit uint32 // AUDIT_ARCH_* as seccomp_data.arch reports it
	// x32 marks x86_64, whose x32 ABI shares the arch value and sets a bit
	// in the syscall number instead: such calls are refused outright.
	x32                      bool
	socket, socketpair       uint32
	connect, sendto, sendmsg uint32
	sendmmsg                 uint32
	bind, listen             uint32
	ioctl                    uint32
}

var seccompArches = map[string]seccompArch{
	"amd64": {audit: 0xc000003e, x32: true, socket: 41, socketpair: 53, connect: 42, sendto: 44, sendmsg: 46, sendmmsg: 307, ioctl: 16, bind: 49, listen: 50},
	"arm64": {audit: 0xc00000b7, socket: 198, socketpair: 199, connect: 203, sendto: 206, sendmsg: 211, sendmmsg: 269, ioctl: 29, bind: 200, listen: 201},
}

// The io_uring calls have the same numbers on every architecture.
const (
	sysIOUringSetup    = 425
	sysIOUringEnter    = 426
	sysIOUringRegister = 427
	x32Bit             = 0x40000000
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
func and(k uint32) insn            { return insn{code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, k: k} }
func ja(to string) insn            { return insn{code: unix.BPF_JMP | unix.BPF_JA, ja: to} }
func ret(k uint32) insn            { return insn{code: unix.BPF_RET | unix.BPF_K, k: k} }
func at(label string, i insn) insn { i.label = label; return i }
func errno(e unix.Errno) uint32    { return unix.SECCOMP_RET_ERRNO | uint32(e)&unix.SECCOMP_RET_DATA }

// hostArch is the running architecture's table; an architecture without
// one gets no filter, and the run fails closed (see ApplySockets).
func hostArch() *seccompArch {
	a, ok := seccompArches[runtime.GOARCH]
	if !ok {
		return nil
	}
	return &a
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
