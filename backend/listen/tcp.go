// Package listen opens the daemon's sockets: a loopback TCP listener with a
// connection cap, and a unix control socket that only accepts peers of our
// own uid.
package listen

import (
	"errors"
	"fmt"
	"net"
	"sync"
)

// ErrNotLoopback is returned for a non-loopback bind without --public.
var ErrNotLoopback = errors.New("address is not loopback")

// IsLoopbackAddr reports whether host (from host:port) is a loopback literal
// or "localhost".
func IsLoopbackAddr(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("listen address %q must be host:port: %w", addr, err)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// Check refuses what TCP would refuse for the address alone, so a caller
// can refuse before it creates anything.
func Check(addr string, public bool) error {
	loop, err := IsLoopbackAddr(addr)
	if err != nil {
		return err
	}
	if !loop && !public {
		return fmt.Errorf("refusing to listen on %s: %w; pass --public to expose Gatehouse beyond this machine", addr, ErrNotLoopback)
	}
	return nil
}

// TCP binds addr. A non-loopback address is refused unless public is set.
// maxConns caps concurrent connections; further ones wait in the kernel
// backlog rather than consuming goroutines and memory.
func TCP(addr string, public bool, maxConns int) (net.Listener, error) {
	if err := Check(addr, public); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if maxConns > 0 {
		ln = limit(ln, maxConns)
	}
	return ln, nil
}

type limitListener struct {
	net.Listener
	sem chan struct{}
}

func limit(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &releaseConn{Conn: c, release: func() { <-l.sem }}, nil
}

type releaseConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *releaseConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
