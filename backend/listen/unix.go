package listen

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
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
	// The socket is bound in a fresh 0700 directory beside path, made
	// 0600 there and renamed into place, so it is never reachable with
	// wider modes. Narrowing the umask instead would race every goroutine
	// creating files meanwhile: the build cache's directories came out
	// 0600, untraversable to the sandboxes.
	dir, err := os.MkdirTemp(filepath.Dir(path), ".gh")
	if err != nil {
		return nil, fmt.Errorf("make the control socket's directory: %w", err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", tmp)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // the name it knows is tmp
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod control socket: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("place control socket at %s: %w", path, err)
	}
	return &sameUIDListener{UnixListener: ul, path: path, uid: uint32(os.Getuid()), peerUID: peerUID, logger: logger}, nil
}

type sameUIDListener struct {
	*net.UnixListener
	path    string
	uid     uint32
	peerUID PeerUIDFunc
	logger  *slog.Logger
}

// Close stops listening and removes the socket.
func (l *sameUIDListener) Close() error {
	err := l.UnixListener.Close()
	if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
		err = rerr
	}
	return err
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
