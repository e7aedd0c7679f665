package protect

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// Making and removing sixty links for every run costs milliseconds on a
// busy disk (unlink frees an inode, symlink allocates one); renaming a
// spare one in and out costs a fraction of that. So spare placeholder
// links wait in a private directory and are renamed into place. A rename
// works only within one mounted filesystem; for a workspace elsewhere
// (EXDEV), or a filesystem without RENAME_NOREPLACE, placeholders are
// made and removed as before.

// pool is a directory of spare placeholder links. Its methods are called
// with the registry's lock held.
type pool struct {
	dir   string
	spare []string
	next  int
}

// UsePool keeps spare placeholders in dir, which must be private to
// this process and hidden from every sandbox (the daemon's data dir).
// Leftovers from an earlier process are removed.
func (r *Placeholders) UsePool(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("clear placeholder pool: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create placeholder pool: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pool = &pool{dir: dir}
	return nil
}

// take renames a spare placeholder link to p, which must not exist;
// false means make one instead.
func (pl *pool) take(p string) bool {
	if pl == nil {
		return false
	}
	// A spare that changed while it waited is not handed out again.
	for len(pl.spare) > 0 && !pristineLink(pl.spare[len(pl.spare)-1]) {
		_ = os.RemoveAll(pl.spare[len(pl.spare)-1])
		pl.spare = pl.spare[:len(pl.spare)-1]
	}
	if len(pl.spare) == 0 {
		s := pl.newName()
		if err := unix.Symlink(LinkTarget, s); err != nil {
			return false
		}
		pl.spare = append(pl.spare, s)
	}
	s := pl.spare[len(pl.spare)-1]
	if err := renameNoReplace(s, p); err != nil {
		return false // EXDEV, EEXIST, no parent, or no NOREPLACE here
	}
	pl.spare = pl.spare[:len(pl.spare)-1]
	return true
}

// give takes placeholder link p back; false leaves it to the caller.
func (pl *pool) give(p string) bool {
	s := pl.newName()
	if err := renameNoReplace(p, s); err != nil {
		return false
	}
	pl.spare = append(pl.spare, s)
	return true
}

func (pl *pool) newName() string {
	pl.next++
	return filepath.Join(pl.dir, strconv.Itoa(pl.next))
}
