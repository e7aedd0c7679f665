package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"golang.org/x/sys/unix"
)

// lockFile holds the single-daemon lock.
const lockFile = "daemon.lock"

// prepareDataDir creates dir 0700 (or tightens an existing one we own) and
// takes the single-daemon lock. The returned file holds the lock until closed.
func prepareDataDir(dir string) (*os.File, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("data directory %q must be an absolute path", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("data directory %s is not a directory", dir)
	}
	if sys, ok := st.Sys().(*unix.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return nil, fmt.Errorf("data directory %s belongs to another user; use your own --data", dir)
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("make data directory private: %w", err)
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("another Gatehouse daemon is already running with data directory %s; stop it first or pass another --data", dir)
		}
		return nil, fmt.Errorf("lock data directory: %w", err)
	}
	// No sandbox is open yet, and each makes again the copies it needs;
	// those of configs changed since would only pile up.
	_ = os.RemoveAll(filepath.Join(dir, datadir.ShownDir))
	// No session outlives the daemon that had it.
	_ = os.RemoveAll(filepath.Join(dir, datadir.TmpDir))
	return f, nil
}
