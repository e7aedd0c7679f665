package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// FreshHome makes the run's $HOME with copies of the allowlisted files
// from the real one, read-only.
func FreshHome(realHome, home string) error {
	if err := os.Mkdir(home, 0o700); err != nil {
		return fmt.Errorf("create run home: %w", err)
	}
	skip := HomeCredentials(realHome)
	for _, rel := range HomeAllowlist {
		src := filepath.Join(realHome, rel)
		if err := copyTree(src, filepath.Join(home, rel), skip); err != nil {
			return fmt.Errorf("copy %s into the run's home: %w", rel, err)
		}
	}
	for _, real := range HomeGitConfigs(realHome) {
		rel, _ := filepath.Rel(realHome, real)
		p := filepath.Join(home, rel)
		b, err := os.ReadFile(p)
		if err != nil {
			continue // not there to copy
		}
		if red, changed := protect.RedactGitConfig(b); changed {
			if err := rewriteReadOnly(p, red); err != nil {
				return fmt.Errorf("take the credentials out of the run's %s: %w", rel, err)
			}
		}
	}
	return nil
}

// rewriteReadOnly replaces the content of p, a read-only copy.
func rewriteReadOnly(p string, b []byte) error {
	if err := os.Chmod(p, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		return err
	}
	return os.Chmod(p, 0o400)
}

// RedactedHomeConfigs writes into dir a copy of each of home's git config
// files that holds credentials, with them taken out
// (protect.RedactGitConfig), and returns each such file's path with its
// copy's: a sandbox that shows the real home's files shows the copy
// there instead. A copy is named for its content, so sessions share it
// and a changed config makes a new one.
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
		// Made only when there is something to copy.
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("copy %s without its credentials: %w", p, err)
		}
		sum := sha256.Sum256(red)
		cp := filepath.Join(dir, "gitconfig-"+hex.EncodeToString(sum[:8]))
		if _, err := os.Stat(cp); err != nil {
			tmp, err := os.CreateTemp(dir, ".gitconfig-*")
			if err != nil {
				return nil, fmt.Errorf("copy %s without its credentials: %w", p, err)
			}
			_, werr := tmp.Write(red)
			cerr := tmp.Close()
			if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o444), os.Rename(tmp.Name(), cp)); err != nil {
				os.Remove(tmp.Name())
				return nil, fmt.Errorf("copy %s without its credentials: %w", p, err)
			}
		}
		out[p] = cp
	}
	return out, nil
}

// copyTree copies src to dst, but for the paths in skip.
func copyTree(src, dst string, skip []string) error {
	if slices.Contains(skip, src) {
		return nil
	}
	st, err := os.Lstat(src)
	if err != nil {
		return nil // absent: nothing to show
	}
	switch {
	case st.IsDir():
		if err := os.MkdirAll(dst, 0o700); err != nil {
			return err
		}
		ents, err := os.ReadDir(src)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := copyTree(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()), skip); err != nil {
				return err
			}
		}
		return os.Chmod(dst, 0o500)
	case st.Mode().IsRegular():
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		in, err := os.Open(src)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o400)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	return nil // symlinks and devices are not copied
}
