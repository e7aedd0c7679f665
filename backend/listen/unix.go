package listen

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"syscall"
)

// PeerUIDFunc reads the uid of the process at the other end of a unix
// connection (SO_PEERCRED on Linux, getpeereid on BSD/macOS).
type PeerUIDFunc func(*net.UnixConn) (uint32, error)

// ErrWrongPeer means a peer of another uid tried the control socket.
var ErrWrongPeer = errors.New("peer uid differs from the daemon's")

// Unix creates the control socket at path with mode 0600. Connections from
// another uid are closed at accept time, before any byte is read.
func Unix(path string, logger *slog.Logger) (net.Listener, error) {
	// A stale socket from a killed daemon would make bind fail. Only remove
	// a socket, never a regular file someone put there.
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket; move it away and start again", path)
		}
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			return nil, fmt.Errorf("another Gatehouse daemon is already using %s; stop it first", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove stale socket: %w", err)
		}
	}
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod control socket: %w", err)
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(true)
	return &sameUIDListener{UnixListener: ul, uid: uint32(os.Getuid()), peerUID: peerUID, logger: logger}, nil
}

type sameUIDListener struct {
	*net.UnixListener
	uid     uint32
	peerUID PeerUIDFunc
	logger  *slog.Logger
}

func (l *sameUIDListener) Accept() (net.Conn, error) {
	for {
		c, err := l.UnixListener.AcceptUnix()
		if err != nil {
			return nil, err
		}
		uid, err := l.peerUID(c)
		if err != nil {
			l.logger.Warn("control socket: cannot read peer credentials; closing", "err", err)
			c.Close()
			continue
		}
		if uid != l.uid {
			l.logger.Warn("control socket: refused peer of another user", "peer_uid", uid, "err", ErrWrongPeer)
			c.Close()
			continue
		}
		return c, nil
	}
}
