package landlock

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// Without a network namespace the run's proxy is a port on the host's
// loopback, and Landlock lets the run connect to that port only. What
// holds, exactly:
//   - TCP connects to every other port, on any address, are refused
//     (Landlock), and so is every bind;
//   - no UDP, raw, packet or other IP socket can be created at all (the
//     seccomp filter), so DNS and datagrams never leave;
//   - a connect to the proxy's port number on another address is refused
//     too, though Landlock matches ports only: the supervising helper
//     decides every connect (initproc/notify's connect_linux.go), and TCP
//     Fast Open sends, which connect without connect(2), are refused.
//
// Other processes on the machine can connect to the port too, so the
// listener takes only connections from sockets of this uid: another user
// cannot ride the run's approvals or put cards in front of the person.

// listenProxy opens the run's proxy listener on the host's loopback.
func listenProxy() (net.Listener, error) { return ListenLoopback("the run's proxy") }

// listenHostPorts opens a listener on the host's loopback for each host
// port, by port: the run's connects to 127.0.0.1 at a host port go there
// (a route), and the proxy connects each on to the port itself.
func listenHostPorts(ports []int) (map[int]net.Listener, error) {
	lns := map[int]net.Listener{}
	for _, p := range ports {
		ln, err := ListenLoopback(fmt.Sprintf("the run's host port %d", p))
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return nil, err
		}
		lns[p] = ln
	}
	return lns, nil
}

// ListenLoopback opens a listener on a free port of the host's loopback
// that takes connections from this user's sockets only (what names it,
// for the error).
func ListenLoopback(what string) (net.Listener, error) {
	var lc net.ListenConfig
	lc.SetMultipathTCP(false) // plain TCP, which is what Landlock governs
	ln, err := lc.Listen(context.Background(), "tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("open a port for %s: %w", what, err)
	}
	return &sameUserListener{Listener: ln, uid: os.Geteuid()}, nil
}

// sameUserListener drops connections whose peer socket belongs to
// another user.
type sameUserListener struct {
	net.Listener
	uid int
}

func (l *sameUserListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if owner, err := peerUID(c); err == nil && owner == l.uid {
			return c, nil
		}
		c.Close()
	}
}

// peerUID finds the owner of the socket at the other end of a loopback
// connection in /proc/net/tcp: the entry whose local address is our
// remote one and whose remote address is our local one.
func peerUID(c net.Conn) (int, error) {
	local, err1 := netip.ParseAddrPort(c.LocalAddr().String())
	remote, err2 := netip.ParseAddrPort(c.RemoteAddr().String())
	if err1 != nil || err2 != nil || !remote.Addr().Is4() {
		return -1, fmt.Errorf("not an IPv4 loopback connection")
	}
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return -1, err
	}
	defer f.Close()
	want := procAddr(remote) + " " + procAddr(local)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || fields[1]+" "+fields[2] != want {
			continue
		}
		return strconv.Atoi(fields[7])
	}
	return -1, fmt.Errorf("peer socket %s not found", remote)
}

// procAddr renders ap as /proc/net/tcp does: the address as the host
// stores it (little-endian here), then the port, both in hex.
func procAddr(ap netip.AddrPort) string {
	b := ap.Addr().As4()
	return fmt.Sprintf("%02X%02X%02X%02X:%04X", b[3], b[2], b[1], b[0], ap.Port())
}
