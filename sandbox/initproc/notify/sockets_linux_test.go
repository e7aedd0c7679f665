package notify

import (
	"encoding/binary"
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// run evaluates a seccomp program on one call, as the kernel would (the
// subset of classic BPF the filter uses). A test of the program's logic
// for every architecture it has a table for; the doctor battery watches
// the installed filter refuse in real processes.
func run(t *testing.T, prog []unix.SockFilter, arch uint32, nr uint32, args ...uint32) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[offNr:], nr)
	binary.LittleEndian.PutUint32(data[offArch:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint32(data[offArg0+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			acc &= in.K
		case unix.BPF_JMP | unix.BPF_JA:
			pc += int(in.K)
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K:
			pc += int(pick(acc == in.K, in.Jt, in.Jf))
		case unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K:
			pc += int(pick(acc >= in.K, in.Jt, in.Jf))
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: code %#x not modelled", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

func pick(c bool, a, b uint8) uint8 {
	if c {
		return a
	}
	return b
}

func TestSocketFilter(t *testing.T) {
	allow, deny, kill := uint32(unix.SECCOMP_RET_ALLOW), errno(unix.EPERM), uint32(unix.SECCOMP_RET_KILL_PROCESS)
	supervised := uint32(unix.SECCOMP_RET_USER_NOTIF)
	const (
		dgram, raw, packet, vsock = 2, 3, 17, 40
		sctp, mptcp               = 132, 262
		nonblockCloexec           = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC
	)
	type call struct {
		name string
		nr   func(a seccompArch) uint32
		args []uint32
		want [3]uint32 // PairsOnly, PairsAndTCP, Namespaced
	}
	sock := func(a seccompArch) uint32 { return a.socket }
	pair := func(a seccompArch) uint32 { return a.socketpair }
	nr := func(n uint32) func(seccompArch) uint32 { return func(seccompArch) uint32 { return n } }
	calls := []call{
		{"unix stream", sock, []uint32{afUnix, sockStream, 0}, [3]uint32{deny, deny, allow}},
		{"unix datagram", sock, []uint32{afUnix, dgram | nonblockCloexec, 0}, [3]uint32{deny, deny, allow}},
		{"tcp", sock, []uint32{afInet, sockStream, 0}, [3]uint32{deny, allow, allow}},
		{"tcp, explicit protocol, flags", sock, []uint32{afInet, sockStream | nonblockCloexec, ipprotoTCP}, [3]uint32{deny, allow, allow}},
		{"tcp6", sock, []uint32{afInet6, sockStream, 0}, [3]uint32{deny, allow, allow}},
		{"udp", sock, []uint32{afInet, dgram, 0}, [3]uint32{deny, deny, allow}},
		{"udp6", sock, []uint32{afInet6, dgram | nonblockCloexec, 0}, [3]uint32{deny, deny, allow}},
		{"raw", sock, []uint32{afInet, raw, 1}, [3]uint32{deny, deny, allow}},
		{"sctp stream", sock, []uint32{afInet, sockStream, sctp}, [3]uint32{deny, deny, allow}},
		{"mptcp", sock, []uint32{afInet, sockStream, mptcp}, [3]uint32{deny, deny, allow}},
		{"packet", sock, []uint32{packet, raw, 0}, [3]uint32{deny, deny, deny}},
		{"vsock", sock, []uint32{vsock, sockStream, 0}, [3]uint32{deny, deny, deny}},
		{"netlink", sock, []uint32{afNetlink, raw, 0}, [3]uint32{deny, deny, allow}},
		{"socketpair unix", pair, []uint32{afUnix, sockStream, 0}, [3]uint32{allow, allow, allow}},
		{"socketpair inet", pair, []uint32{afInet, sockStream, 0}, [3]uint32{deny, deny, deny}},
		{"io_uring_setup", nr(sysIOUringSetup), nil, [3]uint32{deny, deny, allow}},
		{"io_uring_enter", nr(sysIOUringEnter), nil, [3]uint32{deny, deny, allow}},
		{"io_uring_register", nr(sysIOUringRegister), nil, [3]uint32{deny, deny, allow}},
		{"connect", func(a seccompArch) uint32 { return a.connect }, nil, [3]uint32{allow, supervised, allow}},
		{"bind", func(a seccompArch) uint32 { return a.bind }, nil, [3]uint32{allow, supervised, allow}},
		{"listen", func(a seccompArch) uint32 { return a.listen }, nil, [3]uint32{allow, supervised, allow}},
		{"another call", nr(0), []uint32{afInet}, [3]uint32{allow, allow, allow}},
	}
	for name, a := range seccompArches {
		for s, mode := range []Sockets{PairsOnly, PairsAndTCP, Namespaced} {
			prog := mustAssemble(socketFilter(&a, mode))
			for _, c := range calls {
				t.Run(fmt.Sprintf("%s/%d/%s", name, mode, c.name), func(t *testing.T) {
					if got := run(t, prog, a.audit, c.nr(a), c.args...); got != c.want[s] {
						t.Errorf("got %#x, want %#x", got, c.want[s])
					}
				})
			}
			// Another architecture's numbers mean other calls: killed,
			// whatever the call (i386 through int 0x80 on x86_64).
			if got := run(t, prog, 0x40000003, a.socket, afInet, dgram, 0); got != kill {
				t.Errorf("%s/%d: foreign arch got %#x, want kill", name, mode, got)
			}
			if a.x32 {
				if got := run(t, prog, a.audit, x32Bit|a.socket, afInet, dgram, 0); got != deny {
					t.Errorf("%s/%d: x32 socket got %#x, want deny", name, mode, got)
				}
			}
		}
	}
}
