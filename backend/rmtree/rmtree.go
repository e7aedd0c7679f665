// Package rmtree removes directory trees that sandboxed programs or the
// kernel left unreadable to their owner: Go's module cache makes its
// directories read-only, and overlayfs leaves its work directory, and
// what it keeps in it, with no permissions at all. os.RemoveAll stops
// at those unless the daemon runs as root.
package rmtree

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Under removes rel, a path inside root, and everything below it. It
// works through os.Root, so a link the tree's writer planted cannot lead
// it out of root.
func Under(root, rel string) error {
	if rel == "" || rel == "." || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("remove %q: not a path inside %s", rel, root)
	}
	d, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.RemoveAll(rel); err == nil {
		return nil
	}
	// A directory is visited before it is read, so opening it up first
	// lets the walk go on into it.
	_ = fs.WalkDir(d.FS(), rel, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			_ = d.Chmod(p, 0o700)
		}
		return nil
	})
	return d.RemoveAll(rel)
}
