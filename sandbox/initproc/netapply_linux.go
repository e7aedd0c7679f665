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
// and the proxy's listening socket (in the run's own namespace), which is
// handed to the daemon by back.
func confineNetEarly(n *Net, back func(fd int) error) error {
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
	fd, err := listenTCP(n.Listen)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := back(fd); err != nil {
		return fmt.Errorf("hand the proxy's socket to gatehouse: %w", err)
	}
	return nil
}

// sendOnFD hands a descriptor over the unix socket fd.
func sendOnFD(sock int) func(fd int) error {
	return func(fd int) error { return fdpass.Send(sock, []byte{0}, fd) }
}

// sendOn hands a descriptor over conn.
func sendOn(conn *net.UnixConn) func(fd int) error {
	return func(fd int) error {
		_, _, err := conn.WriteMsgUnix([]byte{0}, unix.UnixRights(fd), nil)
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
	if err != nil || !ap.Addr().Is4() {
		return -1, fmt.Errorf("proxy listen address %q is not IPv4 address:port", addr)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return -1, fmt.Errorf("proxy socket: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("proxy socket: %w", err)
	}
	if err := bindAwhile(fd, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("listen for the proxy on %s: %w", addr, err)
	}
	if err := unix.Listen(fd, 128); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("listen for the proxy on %s: %w", addr, err)
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
