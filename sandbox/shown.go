package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// Files a sandbox shows in place of the person's own, written to a
// directory of the daemon's (its data dir's shown/): each named for its
// content, so sessions share it and a changed config makes a new one.

// RedactedHomeConfigs writes into dir a copy of each of home's git config
// files that holds credentials, with them taken out
// (protect.RedactGitConfig), and returns each such file's path with its
// copy's: a sandbox that shows the real home's files shows the copy
// there instead.
func RedactedHomeConfigs(home, dir string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range HomeGitConfigs(home) {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // not there to show
		}
		red, changed := protect.RedactGitConfig(b)
		if !changed {
			continue
		}
		cp, err := writeShown(dir, "gitconfig-", red)
		if err != nil {
			return nil, fmt.Errorf("copy %s without its credentials: %w", p, err)
		}
		out[p] = cp
	}
	return out, nil
}

// GlobalGitConfig writes into dir the person's global git config as one
// file, without its credentials, for a sandbox with a home of its own
// (the container's) to name as GIT_CONFIG_GLOBAL: ~/.config/git/config,
// then ~/.gitconfig, in git's own order, so the later wins as it does
// on the host. It returns "" when there is neither. What they include
// by a path in the person's home is not there, and git passes over it.
func GlobalGitConfig(home, dir string) (string, error) {
	var all []byte
	for _, p := range []string{filepath.Join(home, ".config", "git", "config"), filepath.Join(home, ".gitconfig")} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // not there to show
		}
		red, _ := protect.RedactGitConfig(b)
		all = append(all, "# "+p+", without its credentials\n"...)
		all = append(all, red...)
		all = append(all, '\n')
	}
	if all == nil {
		return "", nil
	}
	cp, err := writeShown(dir, "gitconfig-global-", all)
	if err != nil {
		return "", fmt.Errorf("copy your git config without its credentials: %w", err)
	}
	return cp, nil
}

// writeShown writes b read-only into dir as prefix and a hash of b,
// unless that file is there already, and returns its path.
func writeShown(dir, prefix string, b []byte) (string, error) {
	// Made only when there is something to show.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	cp := filepath.Join(dir, prefix+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(cp); err == nil {
		return cp, nil
	}
	tmp, err := os.CreateTemp(dir, "."+prefix+"*")
	if err != nil {
		return "", err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o444), os.Rename(tmp.Name(), cp)); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return cp, nil
}
