package initproc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/sandbox/fdpass"
	"golang.org/x/sys/unix"
)

type receivedCall struct {
	conn   *net.UnixConn
	req    Request
	stdio  [3]*os.File
	status *os.File
}

// receiveCall dials path and reads one call: an 8-byte length carrying the
// descriptors, then that many bytes of Request JSON.
func receiveCall(path string) (*receivedCall, error) {
	conn, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("reach gatehouse: %w", err)
	}
	var hdr [8]byte
	oob := make([]byte, unix.CmsgSpace(CallFDs*4))
	n, oobn, _, _, err := conn.ReadMsgUnix(hdr[:], oob)
	if err != nil || n != len(hdr) {
		conn.Close()
		if err == nil || errors.Is(err, io.EOF) {
			return nil, errNoRequest
		}
		return nil, fmt.Errorf("read call: %w", err)
	}
	fds, err := fdpass.ParseRights(oob[:oobn])
	if err != nil || len(fds) != CallFDs {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
		conn.Close()
		return nil, fmt.Errorf("read call descriptors: got %d: %v", len(fds), err)
	}
	c := &receivedCall{conn: conn, status: os.NewFile(uintptr(fds[3]), "status")}
	for i := range c.stdio {
		c.stdio[i] = os.NewFile(uintptr(fds[i]), "stdio")
	}
	size := binary.BigEndian.Uint64(hdr[:])
	if size == 0 || size > MaxRequestBytes {
		c.close()
		return nil, fmt.Errorf("call of %d bytes refused", size)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(conn, b); err != nil {
		c.close()
		return nil, fmt.Errorf("read call: %w", err)
	}
	req, err := DecodeRequest(b)
	if err != nil || len(req.Argv) == 0 {
		c.close()
		return nil, fmt.Errorf("decode call: %v", err)
	}
	c.req = req
	syscall.CloseOnExec(fds[3])
	return c, nil
}

// hangup is closed when the daemon closes the connection (or dies).
func (c *receivedCall) hangup() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		var b [1]byte
		_, _ = c.conn.Read(b[:])
		close(ch)
	}()
	return ch
}

func (c *receivedCall) closeStdio() {
	for _, f := range c.stdio {
		f.Close()
	}
}

func (c *receivedCall) close() {
	c.closeStdio()
	c.status.Close()
	c.conn.Close()
}

// lookPath finds name on the PATH of env, as a shell would. Names with
// a slash are left to exec, relative to the run's directory.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found", name)
}
