package protect

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// Making and removing fifteen directories for every run costs milliseconds
// on a busy disk (rmdir frees an inode, mkdir allocates one); renaming a
// spare one in and out costs a tenth of that. So spare placeholders wait
// in a private directory and are renamed into place. A rename works only
// within one mounted filesystem; for a workspace elsewhere (EXDEV), or a
// filesystem without RENAME_NOREPLACE, placeholders are made and removed
// as before.

// pool is a directory of spare placeholders. Its methods are called with
// the registry's lock held.
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
	r.pooled = map[string]bool{}
	return nil
}

// take renames a spare placeholder to p, which must not exist; false
// means make one instead.
func (pl *pool) take(p string) bool {
	if pl == nil {
		return false
	}
	// A spare that changed since it came back (a process that held it open
	// wrote into it, or chmodded it) is not handed out again.
	for len(pl.spare) > 0 && !pristine(pl.spare[len(pl.spare)-1]) {
		_ = os.RemoveAll(pl.spare[len(pl.spare)-1])
		pl.spare = pl.spare[:len(pl.spare)-1]
	}
	if len(pl.spare) == 0 {
		s := pl.newName()
		if err := unix.Mkdir(s, 0o555); err != nil {
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

// give takes placeholder p back if it is still an empty directory; false
// leaves it to the caller. A run that wrote into it (it was not covered
// in some sandbox) keeps what it wrote in the workspace rather than
// carry it to another one.
func (pl *pool) give(p string) bool {
	if !pristine(p) {
		return false
	}
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

// pristine reports whether p is still what a placeholder is made as: a
// directory (not a symlink), mode 0555, with no entries.
func pristine(p string) bool {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Mode().Perm() != 0o555 {
		return false
	}
	_, err = f.Readdirnames(1)
	return errors.Is(err, io.EOF)
}
