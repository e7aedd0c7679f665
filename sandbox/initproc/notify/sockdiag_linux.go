package notify

import (
	"encoding/binary"
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// Reading /proc/net/tcp walks every bucket of the kernel's TCP tables and
// formats each socket as text: 13 ms a read on a machine with 2,000
// sockets, paid for each connect a run makes to a server of its own. The
// socket-diagnostics netlink interface (inet_diag) instead dumps the
// listening sockets alone, filtered in the kernel to one port by a
// one-instruction program.

const (
	tcpListen  = 10 // TCP_LISTEN
	diagBCSEq  = 11 // INET_DIAG_BC_S_EQ: the local port equals the next op's "no"
	diagReqBC  = 1  // INET_DIAG_REQ_BYTECODE
	diagReqLen = 56 // struct inet_diag_req_v2
	// diagInodeAt is where struct inet_diag_msg holds the socket's inode.
	diagInodeAt = 68
)

// errNoDiag: the kernel has no socket diagnostics for TCP.
var errNoDiag = errors.New("no TCP socket diagnostics in this kernel")

// listenersOn calls f with the inode of each TCP socket listening on port
// in this network namespace, IPv4 and IPv6; port 0 means every port.
func listenersOn(port int, f func(inode uint64)) error {
	sock, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return errNoDiag
	}
	defer unix.Close(sock)
	for seq, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		if err := unix.Sendto(sock, diagDump(family, port, uint32(seq+1)), 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
			return errNoDiag
		}
		if err := readDump(sock, uint32(seq+1), f); err != nil {
			return err
		}
	}
	return nil
}

// diagDump is the request for family's listening TCP sockets on port
// (every one for 0).
func diagDump(family uint8, port int, seq uint32) []byte {
	ne := binary.NativeEndian
	n := unix.NLMSG_HDRLEN + diagReqLen
	if port != 0 {
		n += unix.SizeofNlAttr + 8
	}
	req := make([]byte, n)
	ne.PutUint32(req[0:], uint32(n))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	ne.PutUint32(req[8:], seq)
	// struct inet_diag_req_v2: family, protocol, ext, pad, states; the
	// socket id after it is left zero (a dump ignores it).
	r := req[unix.NLMSG_HDRLEN:]
	r[0], r[1] = family, unix.IPPROTO_TCP
	ne.PutUint32(r[4:], 1<<tcpListen)
	if port != 0 {
		// One attribute: the program {S_EQ, yes: 8, no: 12}, {port}. A
		// match ends it exactly at its length (kept); a miss jumps past
		// the end (dropped).
		a := r[diagReqLen:]
		ne.PutUint16(a[0:], unix.SizeofNlAttr+8)
		ne.PutUint16(a[2:], diagReqBC)
		op := a[unix.SizeofNlAttr:]
		op[0], op[1] = diagBCSEq, 8
		ne.PutUint16(op[2:], 12)
		ne.PutUint16(op[6:], uint16(port))
	}
	return req
}

// readDump reads the dump numbered seq until its end, calling f with each
// socket's inode.
func readDump(sock int, seq uint32, f func(inode uint64)) error {
	buf := make([]byte, 32<<10)
	for {
		n, _, err := unix.Recvfrom(sock, buf, 0)
		if err != nil {
			return errNoDiag
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return errNoDiag
		}
		for _, m := range msgs {
			if m.Header.Seq != seq {
				continue
			}
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return nil
			case unix.NLMSG_ERROR:
				return errNoDiag
			case unix.SOCK_DIAG_BY_FAMILY:
				if len(m.Data) >= diagInodeAt+4 {
					f(uint64(binary.NativeEndian.Uint32(m.Data[diagInodeAt:])))
				}
			}
		}
	}
}
