package launch

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/sandbox"

	"golang.org/x/sys/unix"
)

// requestChannel is a connected pair of unix sockets: the daemon writes
// the Request on ours and shuts it for writing (the helper reads to EOF),
// and the helper may hand a descriptor back on theirs (the proxy's
// listening socket in the sandbox's network namespace).
func requestChannel() (ours *net.UnixConn, theirs *os.File, err error) {
	// Under ForkLock, as the net package does: a fork between socketpair
	// and CloseOnExec would leak the pair into another child.
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("create sandbox request socket: %w", err)
	}
	f := os.NewFile(uintptr(fds[0]), "request")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("create sandbox request socket: %w", err)
	}
	return c.(*net.UnixConn), os.NewFile(uintptr(fds[1]), "request"), nil
}

// receiveListener reads one descriptor from conn and makes a listener of
// it; it fails if the helper closes its side without sending one.
func receiveListener(conn *net.UnixConn) (net.Listener, error) {
	var b [1]byte
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := conn.ReadMsgUnix(b[:], oob)
	if err != nil {
		return nil, fmt.Errorf("receive the proxy socket: %w", err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, errors.New("receive the proxy socket: no descriptor came")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, errors.New("receive the proxy socket: expected one descriptor")
	}
	f := os.NewFile(uintptr(fds[0]), "proxy")
	defer f.Close()
	// Only a listening TCP socket will do: anything else the sandbox could
	// send would not be the proxy's.
	if v, err := unix.GetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || v != 1 {
		return nil, errors.New("receive the proxy socket: it is not a listening socket")
	}
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("receive the proxy socket: %w", err)
	}
	return ln, nil
}

// ServeProxyFrom receives the proxy's listening socket from a helper on
// conn and hands it to proxy; the returned stop closes it, whether it has
// come yet or not. A helper that fails before sending says why in its
// status, so a missing socket is only logged here.
func ServeProxyFrom(conn *net.UnixConn, proxy sandbox.Proxy, log *slog.Logger) (stop func()) {
	var (
		mu     sync.Mutex
		ln     net.Listener
		closed bool
	)
	go func() {
		l, err := receiveListener(conn)
		if err != nil {
			log.Debug("sandbox: no proxy socket from the helper", "err", err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if closed {
			l.Close()
			return
		}
		ln = l
		go proxy.Serve(l)
	}()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		closed = true
		if ln != nil {
			ln.Close()
		}
	}
}
