package initproc

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/notify"
	"golang.org/x/sys/unix"
)

// confineNetEarly applies the parts of n that must precede the rest of
// the call's setup: Landlock's network layer (with the host's namespace),
// and the listening sockets of the proxy and the host ports (in the run's
// own namespace), which are handed to the daemon by back, the proxy's
// first.
func confineNetEarly(n *Net, back func(fds []int) error) error {
	if n == nil {
		return nil
	}
	if err := n.check(); err != nil {
		return err
	}
	if n.Mode == NetHost {
		return nil
	}
	if n.HostNamespace {
		var ports []int
		if n.Mode == NetProxy {
			for p := range n.routes() {
				ports = append(ports, p)
			}
		}
		return applyLandlockNet(ports)
	}
	if n.Mode != NetProxy || n.Listen == "" {
		return nil
	}
	if back == nil {
		return fmt.Errorf("no channel to hand the proxy's socket back on")
	}
	fds, err := listenAll(n)
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	if err != nil {
		return err
	}
	if err := back(fds); err != nil {
		return fmt.Errorf("hand the proxy's socket to gatehouse: %w", err)
	}
	return nil
}

// listenAll listens for the proxy, then for each host port at 127.0.0.1
// and, where the namespace has IPv6, ::1. Taken before the target starts,
// a host port is never the target's to listen on.
func listenAll(n *Net) ([]int, error) {
	fd, err := listenTCP(n.Listen)
	if err != nil {
		return nil, err
	}
	fds := []int{fd}
	for _, p := range n.HostPorts {
		for _, a := range []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()} {
			fd, err := listenTCP(netip.AddrPortFrom(a, uint16(p)).String())
			if err != nil && a.Is6() && (errors.Is(err, unix.EADDRNOTAVAIL) || errors.Is(err, unix.EAFNOSUPPORT)) {
				continue // IPv6 is off on this machine: no client dials ::1
			}
			if err != nil {
				return fds, err
			}
			fds = append(fds, fd)
		}
	}
	return fds, nil
}

// sendOnFD hands descriptors over the unix socket fd, in one message.
func sendOnFD(sock int) func(fds []int) error {
	return func(fds []int) error { return fdpass.Send(sock, []byte{0}, fds...) }
}

// sendOn hands descriptors over conn, in one message.
func sendOn(conn *net.UnixConn) func(fds []int) error {
	return func(fds []int) error {
		_, _, err := conn.WriteMsgUnix([]byte{0}, unix.UnixRights(fds...), nil)
		return err
	}
}

// confineNetLast installs the socket filter, the last step before exec.
// With a proxy in the host's namespace each connect is the supervisor's
// to make (connects); without one the run is refused.
func confineNetLast(n *Net, connects int) error {
	if n == nil || n.Mode == NetHost {
		return nil
	}
	switch {
	case !n.HostNamespace:
		return notify.ApplySockets(notify.Namespaced)
	case n.Mode == NetProxy:
		if connects <= 0 {
			// Landlock alone would let the proxy's port on any host through.
			return fmt.Errorf("a proxy in the host's namespace needs a supervising helper to decide its connects")
		}
		return notify.HandConnects(connects, n.routes())
	}
	return notify.ApplySockets(notify.PairsOnly)
}

// listenTCP makes a plain TCP listening socket with raw calls: Go's
// net.Listen would pick MPTCP and register the socket with this process's
// poller, and the socket is only passed on.
func listenTCP(addr string) (int, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return -1, fmt.Errorf("listen address %q is not address:port", addr)
	}
	var family int
	var sa unix.Sockaddr
	if ap.Addr().Is4() {
		family, sa = unix.AF_INET, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	} else {
		family, sa = unix.AF_INET6, &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return -1, fmt.Errorf("proxy socket: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("proxy socket: %w", err)
	}
	if family == unix.AF_INET6 {
		// ::1 alone; 127.0.0.1 has a socket of its own.
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("proxy socket: %w", err)
		}
	}
	if err := bindAwhile(fd, sa); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("listen for gatehouse on %s: %w", addr, err)
	}
	if err := unix.Listen(fd, 128); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("listen for gatehouse on %s: %w", addr, err)
	}
	return fd, nil
}

// proxyBindWait bounds how long a proxy's address may stay taken: in a
// network namespace the zygote's pool gave an earlier run of the
// session, that run's listener stays open in the daemon until its call
// has returned, which may come a moment after the namespace did.
const proxyBindWait = 500 * time.Millisecond

// bindAwhile binds fd to sa, trying again while the address is in use,
// up to proxyBindWait.
func bindAwhile(fd int, sa unix.Sockaddr) error {
	deadline := time.Now().Add(proxyBindWait)
	for {
		err := unix.Bind(fd, sa)
		if !errors.Is(err, unix.EADDRINUSE) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(2 * time.Millisecond)
	}
}
