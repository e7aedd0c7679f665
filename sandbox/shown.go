package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

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
	return redactedCopies(readHomeGit(home), dir)
}

// HomeGitView is RedactedHomeConfigs and HomeGitExtras at once, reading
// each of the person's git files once: what a sandbox's home shows of
// git, asked for each command.
func HomeGitView(home, dir string) (copies map[string]string, extras []string, err error) {
	g := readHomeGit(home)
	copies, err = redactedCopies(g, dir)
	return copies, g.extras, err
}

// redactedCopies copies each of g's configs that holds credentials into
// dir, with them taken out (see RedactedHomeConfigs).
func redactedCopies(g homeGit, dir string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range g.configs {
		b, ok := g.read.Data(p)
		if !ok {
			var err error
			if b, err = os.ReadFile(p); err != nil { // larger than a config is read for its settings
				continue // not there to show
			}
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
// on the host. The files they include or name are named by absolute
// path, and extras holds what to show at each such path in the home
// (HomeGitExtras): a config's copy without its credentials, or the file
// itself. It returns "" when there is no config.
func GlobalGitConfig(home, dir string) (global string, extras map[string]string, err error) {
	shown := func(p string) ([]byte, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		red, _ := protect.RedactGitConfig(b)
		return protect.AbsoluteIncludes(red, p, home), nil
	}
	var all []byte
	for _, p := range []string{filepath.Join(home, ".config", "git", "config"), filepath.Join(home, ".gitconfig")} {
		b, err := shown(p)
		if err != nil {
			continue // not there to show
		}
		all = append(all, "# "+p+", without its credentials\n"...)
		all = append(all, b...)
		all = append(all, '\n')
	}
	if all == nil {
		return "", nil, nil
	}
	fail := func(err error) (string, map[string]string, error) {
		return "", nil, fmt.Errorf("copy your git config without its credentials: %w", err)
	}
	extras = map[string]string{}
	configs := HomeGitIncludes(home)
	for _, p := range HomeGitExtras(home) {
		if !slices.Contains(configs, p) {
			extras[p] = p // ignore rules, attributes, hooks: shown as they are
			continue
		}
		b, err := shown(p)
		if err != nil {
			continue
		}
		cp, err := writeShown(dir, "gitconfig-", b)
		if err != nil {
			return fail(err)
		}
		extras[p] = cp
	}
	if global, err = writeShown(dir, "gitconfig-global-", all); err != nil {
		return fail(err)
	}
	return global, extras, nil
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
