package notify

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
	"golang.org/x/sys/unix"
)

// Landlock matches TCP ports, not addresses: a run allowed the proxy's
// port on the host's loopback could reach the same port number on any
// other address, a host of its own choosing listening on every port
// included. So beside Landlock every connect(2) stops at a seccomp
// notification, and the supervising helper decides it: it reads the
// address from the run's memory and, only when it is the proxy's
// (127.0.0.1:port), connects the run's socket itself from its own copy
// of the address (pidfd_getfd), so a run changing the address after the
// check changes nothing. It makes a connect to one of the run's own
// listeners too (listen_linux.go). Anything else fails with EACCES, as
// Landlock's refusals do. Landlock's port rule stays beneath it.
//
// A run may be given more than one such port, and a port it dials may
// lead to another: a whole confined agent (agentbox on Landlock) dials
// the proxy and the daemon at the addresses it would inside a network
// namespace of its own, and reaches its run's listeners.

// Routes are the ports a run may connect to on 127.0.0.1: each port it
// dials, and the port the supervisor connects it to.
type Routes map[int]int

// maxRoutes bounds what a run hands its supervisor.
const maxRoutes = 16

// HandConnects installs the connect filter (PairsAndTCP) on the calling
// thread, which execs the target next, and sends its listener and the
// run's routes to the supervisor over sock (initproc.Config.NotifyFD),
// then closes both.
func HandConnects(sock int, routes Routes) error {
	listener, err := installSeccomp(PairsAndTCP)
	if err != nil {
		return err
	}
	return handConnects(sock, listener, routes)
}

// handConnects sends the filter's listener and the routes (pairs of
// little-endian ports) to the supervisor over sock, then closes both.
func handConnects(sock, listener int, routes Routes) error {
	defer unix.Close(sock)
	defer unix.Close(listener)
	if len(routes) == 0 || len(routes) > maxRoutes {
		return fmt.Errorf("a run needs 1 to %d ports to connect to, not %d", maxRoutes, len(routes))
	}
	b := make([]byte, 0, 8*len(routes))
	for seen, to := range routes {
		b = binary.LittleEndian.AppendUint32(b, uint32(seen))
		b = binary.LittleEndian.AppendUint32(b, uint32(to))
	}
	if err := fdpass.Send(sock, b, listener); err != nil {
		return fmt.Errorf("hand the connect filter to the supervisor: %w", err)
	}
	return nil
}

// ServeConnects waits on sock for a run's listener and serves it until
// the run is gone. A run without a proxy in the host's namespace sends
// nothing, and its exec closes the socket.
func ServeConnects(sock int) {
	defer unix.Close(sock)
	b := make([]byte, 8*maxRoutes)
	fd, n, err := fdpass.ReceiveOne(sock, b)
	if err != nil {
		return
	}
	if n == 0 || n%8 != 0 {
		unix.Close(fd)
		return
	}
	routes := Routes{}
	for i := 0; i < n; i += 8 {
		routes[int(binary.LittleEndian.Uint32(b[i:]))] = int(binary.LittleEndian.Uint32(b[i+4:]))
	}
	serveConnects(fd, routes)
}

// supervisor decides one run's socket calls: its routes, and the
// listeners it made.
type supervisor struct {
	routes Routes
	own    *listeners
}

// serveConnects answers the listener's notifications until it fails (no
// task of the run holds the filter any more).
func serveConnects(listener int, routes Routes) {
	defer unix.Close(listener)
	sv := &supervisor{routes: routes, own: &listeners{}}
	a := hostArch()
	for {
		req, err := receiveNotif(listener)
		if err == errCallerGone {
			continue
		}
		if err != nil {
			return
		}
		// A blocking connect waits in its own goroutine.
		go func(req seccompNotif) {
			c, errno := openNetCaller(listener, &req)
			if errno == 0 {
				switch uint32(req.Nr) {
				case a.connect:
					errno = sv.connect(c)
				case a.bind:
					errno = sv.bind(c)
				case a.listen:
					errno = sv.listen(c)
				default:
					errno = unix.ENOSYS
				}
				c.close()
			}
			var err error
			if errno != 0 {
				err = errno
			}
			answerNotif(listener, req.ID, err)
		}(req)
	}
}

// connect makes the connect the caller asked for when its address is one
// of the run's routes (to the route's port) or one of its own listeners,
// and returns the call's errno (0 for success).
func (sv *supervisor) connect(c *netCaller) unix.Errno {
	sa, errno := c.sockaddr(uintptr(c.req.Args[1]), int(c.req.Args[2]))
	if errno != 0 {
		return errno
	}
	if to, ok := routed(sa, sv.routes); ok {
		binary.BigEndian.PutUint16(sa[2:4], uint16(to))
	} else if port, ok := localPort(sa); !ok || !sv.own.hold(port) {
		return unix.EACCES
	}
	fd, errno := c.socket(int(c.req.Args[0]))
	if errno != 0 {
		return errno
	}
	defer unix.Close(fd)
	if _, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&sa[0])), uintptr(len(sa))); e != 0 {
		return e
	}
	return 0
}

// routed: sa is the IPv4 address 127.0.0.1 at a port of routes, and
// the port it leads to.
func routed(sa []byte, routes Routes) (int, bool) {
	if len(sa) < 8 || binary.LittleEndian.Uint16(sa[0:2]) != unix.AF_INET {
		return 0, false
	}
	if sa[4] != 127 || sa[5] != 0 || sa[6] != 0 || sa[7] != 1 {
		return 0, false
	}
	to, ok := routes[int(binary.BigEndian.Uint16(sa[2:4]))]
	return to, ok
}

// routePort reports whether port is one the run dials or is led to.
func (r Routes) routePort(port int) bool {
	for seen, to := range r {
		if port == seen || port == to {
			return true
		}
	}
	return false
}
