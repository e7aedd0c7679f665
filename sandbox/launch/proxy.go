package launch

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"slices"
	"sync"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
	"golang.org/x/sys/unix"
)

// serveProxy hands the run's proxy and host-port listeners to call.Proxy
// and returns what closes them once the run is over.
func (p *Pending) serveProxy(call Invocation) (stop func()) {
	own := append([]net.Listener{call.ProxyListener}, slices.Collect(maps.Values(call.HostListeners))...)
	if call.Proxy == nil {
		closeListeners(own)
		return func() {}
	}
	if call.ProxyListener != nil {
		go call.Proxy.Serve(call.ProxyListener)
		for port, ln := range call.HostListeners {
			go call.Proxy.ServeHost(port, ln)
		}
		return func() { closeListeners(own) }
	}
	if call.Request == nil || call.Request.Net == nil || call.Request.Net.Listen == "" || p.request == nil {
		return func() {}
	}
	return ServeProxyFrom(p.request, call.Proxy, p.log)
}

// closeListeners closes each of lns that is set.
func closeListeners(lns []net.Listener) {
	for _, ln := range lns {
		if ln != nil {
			ln.Close()
		}
	}
}

// maxHanded bounds the listeners one helper hands back: the proxy's, and
// two for each host port.
const maxHanded = 1 + 2*16

// receiveListeners reads one message of listening sockets from conn: the
// proxy's first, then the host ports'. It fails if the helper closes its
// side without sending them.
func receiveListeners(conn *net.UnixConn) ([]net.Listener, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("receive the proxy socket: %w", err)
	}
	var fds []int
	var recvErr error
	if err := raw.Read(func(fd uintptr) bool {
		fds, recvErr = fdpass.Receive(int(fd), make([]byte, 1), maxHanded)
		return !errors.Is(recvErr, unix.EAGAIN)
	}); err != nil {
		return nil, fmt.Errorf("receive the proxy socket: %w", err)
	}
	if recvErr != nil {
		return nil, fmt.Errorf("receive the proxy socket: %w", recvErr)
	}
	var lns []net.Listener
	for i, fd := range fds {
		ln, err := fileListener(fd)
		if err != nil {
			for _, fd := range fds[i+1:] {
				unix.Close(fd)
			}
			closeListeners(lns)
			return nil, fmt.Errorf("receive the proxy socket: %w", err)
		}
		lns = append(lns, ln)
	}
	return lns, nil
}

// fileListener makes a listener of fd, which it takes.
func fileListener(fd int) (net.Listener, error) {
	f := os.NewFile(uintptr(fd), "proxy")
	defer f.Close()
	// Only a listening TCP socket will do: anything else the sandbox could
	// send would not be the proxy's.
	if v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || v != 1 {
		return nil, errors.New("it is not a listening socket")
	}
	return net.FileListener(f)
}

// hostPortOf is the host port ln listens for: the port of its loopback
// address, if it is one of ports.
func hostPortOf(ln net.Listener, ports []int) (int, bool) {
	a, ok := ln.Addr().(*net.TCPAddr)
	if !ok || !a.IP.IsLoopback() || !slices.Contains(ports, a.Port) {
		return 0, false
	}
	return a.Port, true
}

// ServeProxyFrom receives the listening sockets of the proxy and the host
// ports from a helper on conn and hands them to proxy; the returned stop
// closes them, whether they have come yet or not. A helper that fails
// before sending says why in its status, so missing sockets are only
// logged here.
func ServeProxyFrom(conn *net.UnixConn, proxy sandbox.Proxy, log *slog.Logger) (stop func()) {
	var (
		mu     sync.Mutex
		lns    []net.Listener
		closed bool
	)
	go func() {
		got, err := receiveListeners(conn)
		if err != nil {
			log.Debug("sandbox: no proxy socket from the helper", "err", err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if closed {
			closeListeners(got)
			return
		}
		lns = got
		go proxy.Serve(got[0])
		ports := proxy.HostPorts()
		for _, ln := range got[1:] {
			// Why: the helper says which socket is which by its address
			// alone; one that is not a listed port's gets no service.
			port, ok := hostPortOf(ln, ports)
			if !ok {
				log.Warn("sandbox: the helper handed back a socket for no host port", "addr", ln.Addr())
				ln.Close()
				continue
			}
			go proxy.ServeHost(port, ln)
		}
	}()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		closed = true
		closeListeners(lns)
	}
}
