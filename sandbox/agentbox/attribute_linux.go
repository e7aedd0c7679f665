package agentbox

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// Process names the process inside the sandbox that made c (a
// connection accepted on one of its listeners): "pid N: its command
// line", or "unknown" when it is gone or cannot be found. This process
// sees the sandbox's processes as their owner does, from outside, so
// nothing inside can change what it reads.
func (b *Box) Process(c net.Conn) string {
	ra, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return "unknown"
	}
	pids, err := b.members()
	if err != nil || len(pids) == 0 {
		return "unknown"
	}
	inode := ""
	if la, ok := c.LocalAddr().(*net.TCPAddr); ok {
		inode = b.diagInode(ra, la)
	}
	if inode == "" {
		inode = socketInode(pids[0], ra, c.LocalAddr())
	}
	if inode == "" {
		return "unknown"
	}
	want := "socket:[" + inode + "]"
	for _, pid := range pids {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name())); err == nil && l == want {
				return describe(pid)
			}
		}
	}
	return "unknown"
}

// members are the sandbox's processes on the host: its first process's
// (or bubblewrap's) descendants, or a container's first process and its
// descendants.
func (b *Box) members() ([]int, error) {
	if b.pidKnown != nil {
		<-b.pidKnown
	}
	if b.agentPID == 0 {
		return proctree.Descendants(b.PID())
	}
	pids, err := proctree.Descendants(b.agentPID)
	return append([]int{b.agentPID}, pids...), err
}

// diagInode is the inode of the socket connected from ra to la in the
// sandbox's network namespace, asked of its socket-diagnostics socket:
// one lookup by address, where reading /proc/PID/net/tcp walks every
// bucket of the kernel's TCP tables (about 2 ms here). "" when there is
// no such socket, or no diagnostics socket.
func (b *Box) diagInode(ra, la *net.TCPAddr) string {
	b.diagMu.Lock()
	defer b.diagMu.Unlock()
	if b.diag < 0 {
		return ""
	}
	b.diagSeq++
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		req := make([]byte, unix.NLMSG_HDRLEN+diagReqLen)
		ne := binary.NativeEndian
		ne.PutUint32(req[0:], uint32(len(req)))
		ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
		ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
		ne.PutUint32(req[8:], b.diagSeq)
		// struct inet_diag_req_v2: family, protocol, ext, pad, states,
		// then struct inet_diag_sockid: the connecting socket's own port
		// and address first, ports and addresses big-endian.
		r := req[unix.NLMSG_HDRLEN:]
		r[0], r[1] = family, unix.IPPROTO_TCP
		ne.PutUint32(r[4:], 0xffffffff)
		id := r[8:]
		binary.BigEndian.PutUint16(id[0:], uint16(ra.Port))
		binary.BigEndian.PutUint16(id[2:], uint16(la.Port))
		if family == unix.AF_INET {
			src, dst := ra.IP.To4(), la.IP.To4()
			if src == nil || dst == nil {
				continue
			}
			copy(id[4:], src)
			copy(id[20:], dst)
		} else {
			copy(id[4:], ra.IP.To16())
			copy(id[20:], la.IP.To16())
		}
		ne.PutUint32(id[40:], 0xffffffff) // INET_DIAG_NOCOOKIE
		ne.PutUint32(id[44:], 0xffffffff)
		if err := unix.Sendto(b.diag, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
			return ""
		}
		if inode, ok := b.diagAnswer(); ok {
			return inode
		}
	}
	return ""
}

// diagReqLen is the size of struct inet_diag_req_v2; diagInodeAt is
// where struct inet_diag_msg holds the socket's inode.
const (
	diagReqLen  = 56
	diagInodeAt = 68
)

// diagAnswer reads the answer to the request numbered b.diagSeq: the
// socket's inode, or ok false when the kernel found none.
func (b *Box) diagAnswer() (string, bool) {
	buf := make([]byte, 8192)
	for {
		n, _, err := unix.Recvfrom(b.diag, buf, 0)
		if err != nil {
			return "", false
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return "", false
		}
		for _, m := range msgs {
			if m.Header.Seq != b.diagSeq {
				continue // a late answer to an earlier request
			}
			if m.Header.Type == unix.SOCK_DIAG_BY_FAMILY && len(m.Data) >= diagInodeAt+4 {
				return strconv.FormatUint(uint64(binary.NativeEndian.Uint32(m.Data[diagInodeAt:])), 10), true
			}
			return "", false // NLMSG_ERROR: no such socket
		}
	}
}

// socketInode is the inode of the TCP socket connected from ra to la in
// the network namespace pid sees. Both ports must match, and the socket
// must be open: the host's table (on Landlock) also holds closed
// connections from the same local port, with no inode.
func socketInode(pid int, ra *net.TCPAddr, la net.Addr) string {
	lp := 0
	if a, ok := la.(*net.TCPAddr); ok {
		lp = a.Port
	}
	local, remote := fmt.Sprintf(":%04X", ra.Port), fmt.Sprintf(":%04X", lp)
	for _, table := range []string{"tcp", "tcp6"} {
		f, err := os.Open(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
			if len(fields) > 9 && strings.HasSuffix(fields[1], local) && strings.HasSuffix(fields[2], remote) && fields[9] != "0" {
				f.Close()
				return fields[9]
			}
		}
		f.Close()
	}
	return ""
}

// openSockDiag is a socket-diagnostics socket in this process's network
// namespace, or -1.
func openSockDiag() (int, error) {
	return unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
}

// describe is "pid N: command line", bounded.
func describe(pid int) string {
	// One line: it heads the proxy connection.
	line := strings.Map(func(r rune) rune {
		if r < ' ' {
			return ' '
		}
		return r
	}, strings.Join(proctree.Cmdline(pid), " "))
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return "pid " + strconv.Itoa(pid) + ": " + line
}
