package launch

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"golang.org/x/sys/unix"
)

// serveProxy hands the run's proxy listener to call.Proxy and returns
// what closes it once the run is over.
func (p *Pending) serveProxy(call Invocation) (stop func()) {
	if call.Proxy == nil {
		if call.ProxyListener != nil {
			call.ProxyListener.Close()
		}
		return func() {}
	}
	if call.ProxyListener != nil {
		go call.Proxy.Serve(call.ProxyListener)
		return func() { call.ProxyListener.Close() }
	}
	if call.Request == nil || call.Request.Net == nil || call.Request.Net.Listen == "" || p.request == nil {
		return func() {}
	}
	return ServeProxyFrom(p.request, call.Proxy, p.log)
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
