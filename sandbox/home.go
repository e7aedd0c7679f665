package sandbox

import (
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
	for _, real := range HomeGitExtras(realHome) {
		rel, _ := filepath.Rel(realHome, real)
		src, err := filepath.EvalSymlinks(real) // a dotfiles manager's link
		if err == nil {
			err = copyTree(src, filepath.Join(home, rel), skip)
		}
		if err != nil {
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
		return copyFile(src, dst)
	}
	return nil // symlinks and devices are not copied
}

// copyFile copies src (through a link) to dst, read-only (and runnable
// if it was: a hook), making the directories above it.
func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	mode := os.FileMode(0o400)
	if st, err := in.Stat(); err == nil && st.Mode()&0o100 != 0 {
		mode = 0o500
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
