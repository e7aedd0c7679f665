package agentbox

import (
	"io"
	"net"
	"sync"

	"golang.org/x/sys/unix"
)

// Forward accepts on ln until it is closed and pipes each connection to
// one dial makes. When label is set, the line it returns is written to the
// other end first (the proxy's "process=…").
func Forward(ln net.Listener, dial func() (net.Conn, error), label func(net.Conn) string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go pipe(c, dial, label)
	}
}

func pipe(c net.Conn, dial func() (net.Conn, error), label func(net.Conn) string) {
	defer c.Close()
	up, err := dial()
	if err != nil {
		return
	}
	defer up.Close()
	if label != nil {
		if _, err := io.WriteString(up, label(c)+"\n"); err != nil {
			return
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(up, c)
		closeWrite(up)
	}()
	_, _ = io.Copy(c, up)
	closeWrite(c)
	wg.Wait()
}

// closeWrite ends one direction, so a half-closed request still gets its
// answer.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// Hand accepts on ln until it is closed and hands each connection itself
// to the other end of one dial makes (a unixpacket connection): one
// message, label's line without its newline, carrying the connection's
// descriptor. The other end then talks to the process inside directly,
// and this process copies none of its bytes.
func Hand(ln net.Listener, dial func() (*net.UnixConn, error), label func(net.Conn) string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go hand(c, dial, label)
	}
}

func hand(c net.Conn, dial func() (*net.UnixConn, error), label func(net.Conn) string) {
	defer c.Close()
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	up, err := dial()
	if err != nil {
		return
	}
	defer up.Close()
	f, err := tc.File()
	if err != nil {
		return
	}
	defer f.Close()
	_, _, _ = up.WriteMsgUnix([]byte(label(c)), unix.UnixRights(int(f.Fd())), nil)
}
