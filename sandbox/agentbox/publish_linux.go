package agentbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
)

// A server the agent starts (a dev server on port 5173) listens in the
// sandbox's network namespace, where the person's browser cannot reach
// it, and nothing on the host can enter that namespace without
// CAP_SYS_ADMIN. A socket belongs to the namespace it was made in,
// whoever connects it: so the first process inside makes a TCP socket
// there each time `gatehouse run` asks (serveSockets), and `gatehouse
// run`, for a port the person published, connects it to the agent's
// server inside and copies between that and a connection it accepted on
// the host's loopback (Box.DialInside, with Forward). Nothing inside can
// ask for a socket: the other end of the pair is `gatehouse run`'s alone.

// Request bytes: the family of the socket asked for.
const (
	socketIPv4 byte = 4
	socketIPv6 byte = 6
)

// serveSockets answers each request on sock with a new TCP socket of the
// family asked, made in this process's network namespace, until the
// other end closes.
func serveSockets(sock *os.File) {
	defer sock.Close()
	b := make([]byte, 1)
	for {
		n, err := sock.Read(b)
		if err != nil || n != 1 {
			return
		}
		family := unix.AF_INET
		if b[0] == socketIPv6 {
			family = unix.AF_INET6
		}
		fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			// An empty answer: no socket.
			if _, err := sock.Write([]byte{0}); err != nil {
				return
			}
			continue
		}
		err = fdpass.Send(int(sock.Fd()), []byte{b[0]}, fd)
		unix.Close(fd)
		if err != nil {
			return
		}
	}
}

// socketsPair makes the pair the first process answers on: its end, and
// the end it hands out.
func socketsPair() (inside, outside *os.File, err error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open the sandbox's socket maker: %w", err)
	}
	return os.NewFile(uintptr(pair[0]), "sockets"), os.NewFile(uintptr(pair[1]), "sockets-out"), nil
}

// insideSockets asks the first process inside for sockets; nil where it
// handed none out (Landlock, which needs none: the agent's servers are
// on the host's loopback).
type insideSockets struct {
	mu sync.Mutex
	fd int
}

// errNoSockets: the sandbox's first process made no socket.
var errNoSockets = errors.New("the sandbox's first process made no socket (it has ended, or started the agent in its place)")

// get asks for one socket of family (socketIPv4, socketIPv6).
func (s *insideSockets) get(family byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fd < 0 {
		return -1, errNoSockets
	}
	if _, err := unix.Write(s.fd, []byte{family}); err != nil {
		return -1, errNoSockets
	}
	fd, _, err := fdpass.ReceiveOne(s.fd, make([]byte, 1))
	switch {
	case errors.Is(err, io.EOF):
		return -1, errNoSockets
	case err != nil:
		return -1, fmt.Errorf("the sandbox made no socket: %w", err)
	}
	unix.CloseOnExec(fd)
	return fd, nil
}

// close ends the pair; a request after it fails.
func (s *insideSockets) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fd >= 0 {
		unix.Close(s.fd)
		s.fd = -1
	}
}

// DialInside connects to port on the loopback inside the sandbox's
// network namespace (127.0.0.1, then ::1, where a server that listens on
// "localhost" may be alone), for a port the person published.
func (b *Box) DialInside(port int) (net.Conn, error) {
	if b.sockets == nil {
		return nil, errNoSockets
	}
	var firstErr error
	for _, try := range []struct {
		family byte
		addr   unix.Sockaddr
	}{
		{socketIPv4, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}},
		{socketIPv6, &unix.SockaddrInet6{Port: port, Addr: [16]byte{15: 1}}},
	} {
		fd, err := b.sockets.get(try.family)
		if err != nil {
			return nil, err
		}
		if err := unix.Connect(fd, try.addr); err != nil {
			unix.Close(fd)
			if firstErr == nil {
				firstErr = fmt.Errorf("connect to port %d inside the sandbox: %w", port, err)
			}
			continue
		}
		f := os.NewFile(uintptr(fd), "inside")
		c, err := net.FileConn(f)
		f.Close()
		return c, err
	}
	return nil, firstErr
}
