package notify

import (
	"encoding/binary"
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A run beside Landlock shares the host's network namespace, so a
// listener it made would take connections from the network: Landlock's
// bind rule cannot tell the loopback from the LAN (it matches ports), and
// a listen(2) without bind(2) binds every address without asking it.
// Refusing both, as Landlock alone did, broke every test suite that
// starts a server of its own. So the supervisor makes each bind and
// listen itself, on its own descriptor for the run's socket, and ties the
// socket to the loopback device before it listens: the run's clients,
// and the person's browser on the same machine, reach it at any local
// address; nothing arriving from a network interface does. A run's
// process cannot untie it: changing a socket's device once set takes
// CAP_NET_RAW, which no run keeps.

// unprivilegedPorts is the first port a process without
// CAP_NET_BIND_SERVICE may bind. The supervisor may hold that capability
// (a daemon run by root); the run does not, so a port below stays
// refused, as it would be to the run itself.
const unprivilegedPorts = 1024

// loopbackIndex is the loopback device's index in every network
// namespace (the kernel's LOOPBACK_IFINDEX).
const loopbackIndex = 1

// bind binds the caller's socket itself, from its own copy of the
// address, when the port is one any process of the user could take and
// none of the run's routes (where the run's connects go elsewhere, and
// a listener of its own would stand in for Gatehouse's).
func (sv *supervisor) bind(c *netCaller) unix.Errno {
	sa, errno := c.sockaddr(uintptr(c.req.Args[1]), int(c.req.Args[2]))
	if errno != 0 {
		return errno
	}
	port, ok := inetPort(sa)
	if !ok {
		return unix.EACCES
	}
	if port != 0 && port < unprivilegedPorts || sv.routes.routePort(port) {
		return unix.EACCES
	}
	fd, errno := c.socket(int(c.req.Args[0]))
	if errno != 0 {
		return errno
	}
	defer unix.Close(fd)
	if !isInet(fd) {
		return unix.EACCES
	}
	if port != 0 && sharesPort(fd) && !sv.own.onlyOwn(port) {
		// SO_REUSEPORT would join the run's socket to a host server's
		// group on that port (one of the person's, the same user), and
		// the kernel would hand the run part of that server's clients.
		return unix.EADDRINUSE
	}
	if _, _, e := unix.Syscall(unix.SYS_BIND, uintptr(fd), uintptr(unsafe.Pointer(&sa[0])), uintptr(len(sa))); e != 0 {
		return e
	}
	return 0
}

// listen ties an IP socket to the loopback device, then listens on it,
// and counts it among the run's own listeners.
func (sv *supervisor) listen(c *netCaller) unix.Errno {
	fd, errno := c.socket(int(c.req.Args[0]))
	if errno != 0 {
		return errno
	}
	defer unix.Close(fd)
	inet := isInet(fd)
	if inet {
		if err := onLoopback(fd); err != nil {
			return unix.EACCES
		}
	}
	backlog := int(int32(c.req.Args[1]))
	if _, _, e := unix.Syscall(unix.SYS_LISTEN, uintptr(fd), uintptr(backlog), 0); e != 0 {
		return e
	}
	if inet {
		sv.own.add(fd)
	}
	return 0
}

// errOtherDevice: the run tied its socket to a device of its choosing
// (which it may, once, before anything else has), and only the loopback
// may listen.
var errOtherDevice = errors.New("the socket is tied to another device")

// onLoopback ties fd to the loopback device, unless it is already.
func onLoopback(fd int) error {
	idx, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_BINDTOIFINDEX)
	if err != nil {
		return err
	}
	switch idx {
	case loopbackIndex:
		return nil
	case 0:
		return unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_BINDTOIFINDEX, loopbackIndex)
	default:
		return errOtherDevice
	}
}

// sharesPort: fd has SO_REUSEPORT set.
func sharesPort(fd int) bool {
	v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT)
	return err != nil || v != 0
}

// isInet: fd is an IPv4 or IPv6 socket (the run's others are unix pairs).
func isInet(fd int) bool {
	d, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	return err == nil && (d == unix.AF_INET || d == unix.AF_INET6)
}

// inetPort is sa's port when sa is a whole IPv4 or IPv6 address.
func inetPort(sa []byte) (int, bool) {
	switch binary.LittleEndian.Uint16(sa) {
	case unix.AF_INET:
		if len(sa) < unix.SizeofSockaddrInet4 {
			return 0, false
		}
	case unix.AF_INET6:
		// RFC 2133's form, without a scope, is the shortest the kernel takes.
		if len(sa) < 24 {
			return 0, false
		}
	default:
		return 0, false
	}
	return int(binary.BigEndian.Uint16(sa[2:4])), true
}
