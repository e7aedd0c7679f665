package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Defaults fills in the helper binary and the real home directory that a
// backend was not given.
func Defaults(helper, home *string) error {
	if *helper == "" {
		h, err := DefaultHelper()
		if err != nil {
			return err
		}
		*helper = h
	}
	if *home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("find home directory: %w", err)
		}
		*home = h
	}
	return nil
}

// ErrNoHelper means the helper binary could not be found.
var ErrNoHelper = errors.New("sandbox helper binary not found")

// HelperName is the stand-alone helper binary looked for next to the
// running one (see sandbox/cmd/gatehouse-sandbox-init).
const HelperName = "gatehouse-sandbox-init"

// DefaultHelper is the stand-alone helper installed next to the running
// binary when there is a trustworthy one, else the running binary itself,
// which implements initproc.Entry too.
func DefaultHelper() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoHelper, err)
	}
	if sib := filepath.Join(filepath.Dir(p), HelperName); trustedSibling(sib, p) {
		return sib, nil
	}
	return p, nil
}

// trustedSibling accepts the helper only if it is a regular executable file
// owned like the running binary and writable by nobody else, so a planted
// file cannot stand in for the confinement step.
func trustedSibling(path, self string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 || st.Mode().Perm()&0o022 != 0 {
		return false
	}
	me, err := os.Stat(self)
	if err != nil {
		return false
	}
	a, ok1 := st.Sys().(*syscall.Stat_t)
	b, ok2 := me.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && a.Uid == b.Uid
}
